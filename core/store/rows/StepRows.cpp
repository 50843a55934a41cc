#include "store/rows/StepRows.h"

#include "model/VerdictCodec.h"
#include "store/Database.h"
#include "store/Row.h"
#include "store/StoreErrors.h"
#include "util/Json.h"

namespace km::store {

namespace {
const char* const kStepColumns = "id, run_id, idx, stage, messages, code, diff, error, tokens_in, tokens_out, "
                                 "latency_ms, created_at, verdict_id, template, prompt, reply, guidance, usage, "
                                 "verify_ms, solution_id, status, speedup, summary";

QVariant parsed(const QVariant& column)
{
    json::ParseError e;
    return json::parse(column.toString().toUtf8(), &e).value_or(QVariant());
}

QString jsonText(const QVariant& v)
{
    return QString::fromUtf8(json::write(v));
}

QVariant idOrNull(qint64 id)
{
    return id ? QVariant(id) : QVariant();
}

Result<TrajectoryStep> stepFromRow(Row& row)
{
    TrajectoryStep s;
    s.id = row.integer("id");
    s.runId = row.integer("run_id");
    s.idx = int(row.integer("idx"));
    const QString stage = row.text("stage");
    const auto known = stageFromString(stage);
    if (!known && row.status())
        return damagedRow(QStringLiteral("trajectory step"), s.id, QStringLiteral("unknown stage '%1'").arg(stage));
    s.stage = known.value_or(Stage::Implement);
    s.messages = parsed(row.value("messages")).toList();
    s.code = row.text("code");
    s.diff = row.text("diff");
    s.error = row.text("error");
    s.tokensIn = row.integer("tokens_in");
    s.tokensOut = row.integer("tokens_out");
    s.latencyMs = row.integer("latency_ms");
    s.createdAt = row.isNull("created_at") ? QDateTime() : parseIsoUtc(row.text("created_at")).value_or(QDateTime());
    s.verdictId = row.integer("verdict_id");
    s.templateName = row.text("template");
    s.prompt = row.text("prompt");
    s.reply = row.text("reply");
    s.guidance = parsed(row.value("guidance")).toList();
    s.usage = parsed(row.value("usage")).toMap();
    s.verifyMs = row.integer("verify_ms");
    s.solutionId = row.integer("solution_id");
    s.status = row.text("status");
    s.speedup = row.optionalReal("speedup");
    s.summary = row.text("summary");
    if (Status st = row.status(); !st)
        return st.error();
    return s;
}
}  // namespace

Result<qint64> writeStep(Database& db, qint64 runId, const TrajectoryStep& step, const QString& createdAt)
{
    auto ins = db.exec(
        QStringLiteral("INSERT INTO trajectory_steps(run_id, idx, stage, messages, code, diff, error, tokens_in, "
                       "tokens_out, latency_ms, created_at, verdict_id, template, prompt, reply, guidance, usage, "
                       "verify_ms, solution_id, status, speedup, summary) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        {runId,
         step.idx,
         toString(step.stage),
         jsonText(step.messages),
         step.code,
         step.diff,
         step.error,
         step.tokensIn,
         step.tokensOut,
         step.latencyMs,
         createdAt,
         idOrNull(step.verdictId),
         step.templateName,
         step.prompt,
         step.reply,
         jsonText(step.guidance),
         jsonText(step.usage),
         step.verifyMs,
         idOrNull(step.solutionId),
         step.status,
         step.speedup ? QVariant(*step.speedup) : QVariant(),
         step.summary});
    if (!ins)
        return ins.error();
    return ins.value().lastInsertId().toLongLong();
}

Result<QList<TrajectoryStep>> readSteps(Database& db, qint64 runId)
{
    auto q = db.exec(QStringLiteral("SELECT %1 FROM trajectory_steps WHERE run_id = ? ORDER BY idx")
                         .arg(QLatin1String(kStepColumns)),
                     {runId});
    if (!q)
        return q.error();
    return readRows<TrajectoryStep>(q.value(), stepFromRow);
}

Result<std::optional<TrajectoryStep>> readStep(Database& db, qint64 stepId)
{
    auto q = db.exec(QStringLiteral("SELECT %1 FROM trajectory_steps WHERE id = ?").arg(QLatin1String(kStepColumns)),
                     {stepId});
    if (!q)
        return q.error();
    auto rows = readRows<TrajectoryStep>(q.value(), stepFromRow);
    if (!rows)
        return rows.error();
    if (rows.value().isEmpty())
        return std::optional<TrajectoryStep>();
    return std::optional<TrajectoryStep>(rows.value().first());
}

}  // namespace km::store
