// TrajectoryStore::forkRun: a new run that takes over the first steps of another, in one transaction.
#include "model/VerdictCodec.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/TrajectoryStore.h"
#include "store/rows/StepRows.h"
#include "util/Json.h"

namespace km {

Result<AgentRun> TrajectoryStore::forkRun(AgentRun run, const RunFork& fork, const QString& actor)
{
    if (fork.steps < 1)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("a fork keeps at least one step of the run"));
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto from = this->run(fork.fromRunId);
    if (!from)
        return from.error();
    if (!from.value())
        return makeError(ErrorCode::NotFound, QStringLiteral("no agent run with id %1 to fork").arg(fork.fromRunId));
    if (from.value()->taskId != run.taskId)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("agent run %1 is a run of task '%2', not '%3'")
                                                      .arg(fork.fromRunId)
                                                      .arg(from.value()->taskId, run.taskId));
    auto steps = store::readSteps(m_db, fork.fromRunId);
    if (!steps)
        return steps.error();
    if (steps.value().size() < fork.steps)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("agent run %1 has %2 step(s): it cannot be forked "
                                                                 "from step %3")
                                                      .arg(fork.fromRunId)
                                                      .arg(steps.value().size())
                                                      .arg(fork.steps));
    run.settings.insert(QStringLiteral("forked_from"),
                        QVariantMap{{QStringLiteral("run_id"), fork.fromRunId},
                                    {QStringLiteral("step"), fork.steps},
                                    {QStringLiteral("started_at"), isoUtc(from.value()->startedAt)}});
    const QVariantMap totals = run.totals;
    const Stage stage = run.stage;
    auto created = createRun(std::move(run), actor);  // a savepoint inside this transaction
    if (!created)
        return created.error();
    AgentRun forked = created.value();
    qint64 bestStepId = 0;
    for (int i = 0; i < fork.steps; ++i) {
        TrajectoryStep step = steps.value().at(i);
        auto id = store::writeStep(m_db, forked.id, step,
                                   step.createdAt.isValid() ? isoUtc(step.createdAt) : store::nowText());
        if (!id)
            return id.error();
        if (step.id == fork.bestStepId)
            bestStepId = id.value();
    }
    forked.totals = m_secrets.scrub(totals);
    forked.stage = stage;
    forked.bestStepId = bestStepId;
    auto upd = m_db.exec(QStringLiteral("UPDATE runs SET stage = ?, totals = ?, best_step_id = ? WHERE id = ?"),
                         {toString(stage), QString::fromUtf8(json::write(forked.totals)),
                          bestStepId ? QVariant(bestStepId) : QVariant(), forked.id});
    if (!upd)
        return upd.error();
    if (Status st = store::appendAudit(
            m_db, actor, QStringLiteral("run"), QString::number(forked.id), QStringLiteral("forked"), {},
            {{QStringLiteral("from_run"), fork.fromRunId}, {QStringLiteral("steps"), fork.steps}});
        !st)
        return st.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return forked;
}

}  // namespace km
