// TrajectoryStore: runs read out for a trajectory bundle, and bundled runs stored back, one transaction per run.
#include "model/ScrubbedValues.h"
#include "model/VerdictCodec.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/Row.h"
#include "store/TrajectoryStore.h"
#include "store/rows/SolutionRows.h"
#include "store/rows/StepRows.h"
#include "store/rows/VerdictRows.h"
#include "util/Json.h"
#include "util/Logging.h"

#include <QSqlQuery>
#include <algorithm>

namespace km {

namespace {
const QString kProvenance = QStringLiteral("provenance");

QVariant timeOrNull(const QDateTime& t)
{
    return t.isValid() ? QVariant(isoUtc(t)) : QVariant();
}

QString jsonText(const QVariant& v)
{
    return QString::fromUtf8(json::write(v));
}

bool sameSteps(const QList<TrajectoryStep>& stored, const QList<BundledStep>& bundled)
{
    if (stored.size() != bundled.size())
        return false;
    for (qsizetype i = 0; i < stored.size(); ++i) {
        const TrajectoryStep& a = stored[i];
        const TrajectoryStep& b = bundled[i].step;
        if (a.idx != b.idx || a.prompt != b.prompt || a.reply != b.reply || a.code != b.code)
            return false;
    }
    return true;
}
}  // namespace

Result<QList<BundledRun>> TrajectoryStore::bundledRuns(const RunSelection& which)
{
    // One snapshot: a run still recording cannot gain a step between its row and its steps being read. Nothing is
    // written; the transaction is rolled back when it goes out of scope.
    store::Transaction snapshot(m_db);
    if (!snapshot.started())
        return snapshot.started().error();
    QList<AgentRun> selected;
    if (!which.ids.isEmpty()) {
        QList<qint64> ids = which.ids;
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        for (qint64 id : ids) {
            auto r = run(id);
            if (!r)
                return r.error();
            if (!r.value())
                return makeError(ErrorCode::NotFound, QStringLiteral("no agent run with id %1").arg(id));
            selected.append(*r.value());
        }
    } else {
        auto all = runs(which.taskId);
        if (!all)
            return all.error();
        selected = std::move(all).value();
        std::reverse(selected.begin(), selected.end());  // oldest first
    }
    QList<BundledRun> out;
    for (const AgentRun& r : selected) {
        BundledRun b;
        b.run = r;
        b.origin = r.settings.value(kProvenance).toMap().value(QStringLiteral("origin")).toString();
        auto title = m_db.exec(QStringLiteral("SELECT title FROM tasks WHERE id = ?"), {r.taskId});
        if (!title)
            return title.error();
        store::Row titleRow(title.value());
        if (title.value().next())
            b.taskTitle = titleRow.text("title");
        if (Status st = titleRow.status(); !st)
            return st.error();
        auto steps = this->steps(r.id);
        if (!steps)
            return steps.error();
        for (const TrajectoryStep& s : steps.value()) {
            BundledStep bs{s, std::nullopt};
            if (s.verdictId) {
                auto v = store::readVerdict(m_db, s.verdictId);
                if (!v)
                    return v.error();
                bs.verdict = v.value();
            }
            if (s.id == r.bestStepId)
                b.bestStepIdx = s.idx;
            b.steps.append(bs);
        }
        out.append(b);
    }
    return out;
}

// The run already stored: by the origin an earlier import recorded, or (a run exported from this very store) by
// task, start time and the steps' prompts, replies and code.
Result<std::optional<qint64>> TrajectoryStore::alreadyImported(const BundledRun& b)
{
    auto byOrigin = m_db.exec(QStringLiteral("SELECT id FROM runs WHERE json_extract(settings, '$.provenance.origin') "
                                             "= ? ORDER BY id LIMIT 1"),
                              {b.origin});
    if (!byOrigin)
        return byOrigin.error();
    store::Row originRow(byOrigin.value());
    if (byOrigin.value().next()) {
        const qint64 id = originRow.integer("id");
        if (Status st = originRow.status(); !st)
            return st.error();
        return std::optional<qint64>(id);
    }
    auto candidates = m_db.exec(QStringLiteral("SELECT id FROM runs WHERE task_id = ? AND started_at = ? ORDER BY id"),
                                {b.run.taskId, isoUtc(b.run.startedAt)});
    if (!candidates)
        return candidates.error();
    store::Row candidate(candidates.value());
    QList<qint64> ids;
    while (candidates.value().next())
        ids.append(candidate.integer("id"));
    if (Status st = candidate.status(); !st)
        return st.error();
    for (qint64 id : ids) {
        auto stored = steps(id);
        if (!stored)
            return stored.error();
        if (sameSteps(stored.value(), b.steps))
            return std::optional<qint64>(id);
    }
    return std::optional<qint64>();
}

Result<RunImport> TrajectoryStore::importRun(const BundledRun& given, const QVariantMap& givenProvenance,
                                             const QString& actor)
{
    const BundledRun b = scrubbed(given, m_secrets);
    const QVariantMap provenance = m_secrets.scrub(givenProvenance);
    const AgentRun& r = b.run;
    if (b.origin.isEmpty() || !r.startedAt.isValid())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("a bundled run needs an origin and a start time"));
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto task = m_db.exec(QStringLiteral("SELECT 1 FROM tasks WHERE id = ?"), {r.taskId});
    if (!task)
        return task.error();
    if (!task.value().next())
        return makeError(ErrorCode::NotFound,
                         QStringLiteral("task '%1' is not in the store; import the tasks first").arg(r.taskId));
    auto existing = alreadyImported(b);
    if (!existing)
        return existing.error();
    if (existing.value())
        return RunImport{*existing.value(), true};

    QVariantMap prov = provenance;
    prov.insert(QStringLiteral("origin"), b.origin);
    if (!prov.value(QStringLiteral("imported_at")).isValid())
        prov.insert(QStringLiteral("imported_at"), store::nowText());
    QVariantMap settings = r.settings;
    settings.insert(kProvenance, prov);
    const bool wasRunning = r.state == RunState::Running;
    const QString error =
        wasRunning && r.error.isEmpty() ? QStringLiteral("it was still running when it was exported") : r.error;
    auto ins = m_db.exec(QStringLiteral("INSERT INTO runs(task_id, kind, model, prompt_version, settings, state, "
                                        "started_at, ended_at, owner, budgets, totals, stage, error, cancel_requested) "
                                        "VALUES (?,?,?,?,?,?,?,?,'',?,?,?,?,0)"),
                         {r.taskId, r.kind, r.model, r.promptVersion, jsonText(settings),
                          toString(wasRunning ? RunState::Interrupted : r.state), isoUtc(r.startedAt),
                          timeOrNull(r.endedAt), jsonText(r.budgets), jsonText(r.totals), toString(r.stage), error});
    if (!ins)
        return ins.error();
    const qint64 runId = ins.value().lastInsertId().toLongLong();

    qint64 bestStepId = 0;
    for (const BundledStep& bs : b.steps) {
        TrajectoryStep s = bs.step;
        s.solutionId = 0;
        s.verdictId = 0;
        const QString created = isoUtc(s.createdAt.isValid() ? s.createdAt : r.startedAt);
        bool newSolution = false;
        if (bs.verdict && !s.code.isEmpty()) {
            auto sv = storeSolutionAndVerdict(r.taskId, s.code, *bs.verdict, actor, created);
            if (!sv)
                return sv.error();
            s.solutionId = sv->solutionId;
            s.verdictId = sv->verdictId;
            newSolution = sv->newSolution;
            if (s.status.isEmpty())
                s.status = toString(bs.verdict->status);
        }
        auto stepId = store::writeStep(m_db, runId, s, created);
        if (!stepId)
            return stepId.error();
        if (newSolution) {  // a solution stored before keeps its own step link
            if (Status st = store::linkSolutionToStep(m_db, s.solutionId, stepId.value()); !st)
                return st.error();
        }
        if (b.bestStepIdx && *b.bestStepIdx == s.idx)
            bestStepId = stepId.value();
    }
    if (bestStepId) {
        auto best = m_db.exec(QStringLiteral("UPDATE runs SET best_step_id = ? WHERE id = ?"), {bestStepId, runId});
        if (!best)
            return best.error();
    }
    const QString label = prov.value(QStringLiteral("label")).toString();
    if (Status st = store::appendAudit(
            m_db, actor, QStringLiteral("run"), QString::number(runId), QStringLiteral("imported"), label,
            {{QStringLiteral("task_id"), r.taskId},
             {QStringLiteral("origin"), b.origin},
             {QStringLiteral("label"), label},
             {QStringLiteral("bundle_exported_at"), prov.value(QStringLiteral("bundle_exported_at"))},
             {QStringLiteral("steps"), qint64(b.steps.size())},
             {QStringLiteral("state"), toString(r.state)}});
        !st)
        return st.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    qCInfo(lcStore) << "imported agent run" << runId << "of task" << r.taskId << "with" << b.steps.size() << "steps";
    return RunImport{runId, false};
}

}  // namespace km
