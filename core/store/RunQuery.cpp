// What the runs and replay views read (RunQuery.h): run summaries in one aggregate query, step summaries without
// their long texts, one step in full. On the thread that owns the Database.
#include "store/RunQuery.h"

#include "model/VerdictCodec.h"
#include "store/Database.h"
#include "store/Row.h"
#include "store/StoreErrors.h"
#include "store/rows/RunRows.h"
#include "store/rows/StepRows.h"
#include "store/rows/VerdictRows.h"

#include <QSqlQuery>

namespace km {

namespace {
// One row per run: the run's short columns, its task's title, what the settings say about its source and
// provenance (json_extract: the settings text is small and never leaves SQLite), and its steps' aggregates, all read
// from the index steps_for_summary (v8), never from a step row: a step row holds the long texts, and SQLite reaches
// a column after them only by walking the row's overflow pages. `+l.id` keeps the planner on that index for the best
// step (the rowid lookup would read the row).
const char* const kSummarySql = R"(
SELECT r.id, r.task_id, COALESCE(t.title, '') AS task_title, r.kind, r.model, r.state, r.stage, r.error,
       r.started_at, r.ended_at,
       COALESCE(json_extract(r.settings, '$.reply_source'), '') AS reply_source,
       COALESCE(json_extract(r.settings, '$.source.kind'), '') AS source_kind,
       json_extract(r.settings, '$.source.dir') IS NOT NULL AS source_dir,
       json_extract(r.settings, '$.source.command') IS NOT NULL AS source_command,
       json_type(r.settings, '$.provenance') IS NOT NULL AS imported,
       COALESCE(json_extract(r.settings, '$.provenance.label'), '') AS label,
       COALESCE(json_extract(r.settings, '$.forked_from.run_id'), 0) AS forked_from,
       COALESCE(json_extract(r.settings, '$.forked_from.step'), 0) AS forked_steps,
       COALESCE(a.steps, 0) AS steps, COALESCE(a.tokens, 0) AS tokens, a.best_passed,
       (SELECT l.status FROM trajectory_steps l INDEXED BY steps_for_summary
         WHERE l.run_id = r.id AND +l.id = r.best_step_id) AS best_status,
       (SELECT l.speedup FROM trajectory_steps l INDEXED BY steps_for_summary
         WHERE l.run_id = r.id AND +l.id = r.best_step_id) AS best_speedup,
       (SELECT l.status FROM trajectory_steps l INDEXED BY steps_for_summary
         WHERE l.run_id = r.id ORDER BY l.idx DESC LIMIT 1) AS latest_status
FROM runs r
LEFT JOIN tasks t ON t.id = r.task_id
LEFT JOIN (SELECT run_id, COUNT(*) AS steps, SUM(tokens_in + tokens_out) AS tokens,
                  MAX(CASE WHEN status = 'PASSED' THEN speedup END) AS best_passed
           FROM trajectory_steps INDEXED BY steps_for_summary %1 GROUP BY run_id) a ON a.run_id = r.id
%2
ORDER BY r.started_at DESC, r.id DESC)";

const char* const kStepSummaryColumns = "id, run_id, idx, stage, template, status, speedup, summary, error, tokens_in, "
                                        "tokens_out, latency_ms, verify_ms, solution_id, verdict_id, created_at";

QDateTime timeOf(store::Row& row, const char* column)
{
    return row.isNull(column) ? QDateTime() : parseIsoUtc(row.text(column)).value_or(QDateTime());
}

QString oneLine(const QString& text)
{
    const qsizetype nl = text.indexOf(QLatin1Char('\n'));
    return (nl < 0 ? text : text.left(nl)).trimmed();
}

QString replySourceOf(store::Row& row, const QString& kind, const QString& model)
{
    const QString given = row.text("reply_source");
    if (!given.isEmpty())
        return given;
    const QString sourceKind = row.text("source_kind");
    if (kind == QLatin1String("manual") || sourceKind == QLatin1String("manual")) {
        if (row.integer("source_command") != 0)
            return QStringLiteral("manual command");
        if (row.integer("source_dir") != 0)
            return QStringLiteral("manual folder");
        return QStringLiteral("manual");
    }
    return model.isEmpty() ? kind : QStringLiteral("model %1").arg(model);
}

Result<RunSummary> summaryFromRow(store::Row& row)
{
    RunSummary s;
    s.id = row.integer("id");
    s.taskId = row.text("task_id");
    s.taskTitle = row.text("task_title");
    s.kind = row.text("kind");
    s.model = row.text("model");
    if (s.kind == QLatin1String("manual") && s.model == QLatin1String("manual"))
        s.model.clear();  // the manual sources record "manual" as their model: no model
    s.replySource = replySourceOf(row, s.kind, s.model);
    s.steps = int(row.integer("steps"));
    s.tokens = row.integer("tokens");
    const QString bestStatus = row.text("best_status");
    s.bestStatus = bestStatus.isEmpty() ? row.text("latest_status") : bestStatus;
    s.bestSpeedup = bestStatus == QLatin1String("PASSED") ? row.optionalReal("best_speedup") : std::nullopt;
    if (!s.bestSpeedup)
        s.bestSpeedup = row.optionalReal("best_passed");
    s.label = row.text("label");
    if (s.label.isEmpty() && row.integer("imported") != 0)
        s.label = QStringLiteral("imported");
    s.error = oneLine(row.text("error"));
    s.forkedFrom = row.integer("forked_from");
    s.forkedSteps = int(row.integer("forked_steps"));
    s.startedAt = timeOf(row, "started_at");
    s.endedAt = timeOf(row, "ended_at");
    const QString state = row.text("state");
    const QString stage = row.text("stage");
    if (Status st = row.status(); !st)
        return st.error();
    const auto phase = store::runPhase(s.id, state, stage);
    if (!phase)
        return phase.error();
    s.state = phase->state;
    s.stage = phase->stage;
    const QDateTime end = s.endedAt.isValid()
                              ? s.endedAt
                              : (s.state == RunState::Running ? QDateTime::currentDateTimeUtc() : s.startedAt);
    s.wallMs = s.startedAt.isValid() && end.isValid() ? qMax<qint64>(0, s.startedAt.msecsTo(end)) : 0;
    return s;
}

Result<StepSummary> stepSummaryFromRow(store::Row& row)
{
    StepSummary s;
    s.id = row.integer("id");
    s.runId = row.integer("run_id");
    s.idx = int(row.integer("idx"));
    const QString stage = row.text("stage");
    s.templateName = row.text("template");
    s.status = row.text("status");
    s.speedup = row.optionalReal("speedup");
    s.summary = row.text("summary");
    s.error = oneLine(row.text("error"));
    s.tokensIn = row.integer("tokens_in");
    s.tokensOut = row.integer("tokens_out");
    s.latencyMs = row.integer("latency_ms");
    s.verifyMs = row.integer("verify_ms");
    s.solutionId = row.integer("solution_id");
    s.verdictId = row.integer("verdict_id");
    s.codeLines = int(row.integer("code_lines"));
    s.createdAt = timeOf(row, "created_at");
    if (Status st = row.status(); !st)
        return st.error();
    const auto known = stageFromString(stage);
    if (!known)
        return store::damagedRow(QStringLiteral("trajectory step"), s.id,
                                 QStringLiteral("unknown stage '%1'").arg(stage));
    s.stage = *known;
    return s;
}

Result<QList<RunSummary>> summaries(store::Database& db, std::optional<qint64> runId)
{
    const QString sql = runSummarySql(runId.has_value());
    QVariantList bindings;
    if (runId)
        bindings << *runId << *runId;
    auto q = db.exec(sql, bindings);
    if (!q)
        return q.error();
    return store::readRows<RunSummary>(q.value(), summaryFromRow);
}

Result<bool> runExists(store::Database& db, qint64 runId)
{
    auto q = db.exec(QStringLiteral("SELECT 1 FROM runs WHERE id = ?"), {runId});
    if (!q)
        return q.error();
    return q.value().next();
}

Error noRun(qint64 runId)
{
    return makeError(ErrorCode::NotFound, QStringLiteral("no agent run with id %1").arg(runId));
}

Error noStep(qint64 stepId)
{
    return makeError(ErrorCode::NotFound, QStringLiteral("no trajectory step with id %1").arg(stepId));
}
}  // namespace

QString runSummarySql(bool oneRun)
{
    return QString::fromLatin1(kSummarySql)
        .arg(oneRun ? QStringLiteral("WHERE run_id = ?") : QString(),
             oneRun ? QStringLiteral("WHERE r.id = ?") : QString());
}

Result<QList<RunSummary>> runSummaries(store::Database& db)
{
    return summaries(db, std::nullopt);
}

Result<RunSummary> runSummary(store::Database& db, qint64 runId)
{
    auto r = summaries(db, runId);
    if (!r)
        return r.error();
    if (r.value().isEmpty())
        return noRun(runId);
    return r.value().first();
}

Result<QList<StepSummary>> stepSummaries(store::Database& db, qint64 runId)
{
    auto exists = runExists(db, runId);
    if (!exists)
        return exists.error();
    if (!exists.value())
        return noRun(runId);
    // code_lines counts the code's lines inside SQLite: the code itself is not read out.
    auto q = db.exec(QStringLiteral("SELECT %1, CASE WHEN code = '' THEN 0 ELSE length(code) - "
                                    "length(replace(code, char(10), '')) + (substr(code, -1) <> char(10)) END "
                                    "AS code_lines FROM trajectory_steps WHERE run_id = ? ORDER BY idx")
                         .arg(QLatin1String(kStepSummaryColumns)),
                     {runId});
    if (!q)
        return q.error();
    return store::readRows<StepSummary>(q.value(), stepSummaryFromRow);
}

Result<StepDetail> stepDetail(store::Database& db, qint64 stepId)
{
    auto step = store::readStep(db, stepId);
    if (!step)
        return step.error();
    if (!step.value())
        return noStep(stepId);
    StepDetail d;
    d.step = std::move(*step.value());
    // The latest earlier step with code: what this step changed (a step without code changed nothing).
    auto prev = db.exec(QStringLiteral("SELECT code FROM trajectory_steps WHERE run_id = ? AND idx < ? AND code <> '' "
                                       "ORDER BY idx DESC LIMIT 1"),
                        {d.step.runId, d.step.idx});
    if (!prev)
        return prev.error();
    if (prev.value().next())
        d.previousCode = prev.value().value(0).toString();
    if (d.step.verdictId) {
        auto v = store::readVerdict(db, d.step.verdictId);
        if (!v)
            return v.error();
        d.verdict = v.value();
    }
    return d;
}

Result<QString> stepCode(store::Database& db, qint64 stepId)
{
    auto q = db.exec(QStringLiteral("SELECT code FROM trajectory_steps WHERE id = ?"), {stepId});
    if (!q)
        return q.error();
    if (!q.value().next())
        return noStep(stepId);
    return q.value().value(0).toString();
}

Result<RunWithSteps> runWithSteps(store::Database& db, qint64 runId)
{
    auto run = runSummary(db, runId);
    if (!run)
        return run.error();
    auto steps = stepSummaries(db, runId);
    if (!steps)
        return steps.error();
    return RunWithSteps{std::move(run).value(), std::move(steps).value()};
}

}  // namespace km
