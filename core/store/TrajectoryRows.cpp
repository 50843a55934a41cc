// TrajectoryStore: runs as rows, and the step's solution and verdict written inside the step's transaction.
#include "store/TrajectoryStore.h"

#include "model/ScrubbedValues.h"
#include "model/VerdictCodec.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/rows/SolutionRows.h"
#include "store/rows/StepRows.h"
#include "store/rows/VerdictRows.h"
#include "util/Json.h"

#include <QSqlQuery>
#include <QSysInfo>
#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace km {

QString TrajectoryStore::thisOwner()
{
    return QStringLiteral("%1@%2").arg(::getpid()).arg(QSysInfo::machineHostName());
}

bool TrajectoryStore::ownerAlive(const QString& owner)
{
    const qsizetype at = owner.indexOf(QLatin1Char('@'));
    if (at <= 0)
        return false;  // no owner recorded: nobody runs it
    if (owner.mid(at + 1) != QSysInfo::machineHostName())
        return true;
    bool ok = false;
    const qint64 pid = owner.left(at).toLongLong(&ok);
    if (!ok || pid <= 0)
        return false;
    return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

// Inside the caller's transaction: the solution (stored once per task and code) and its verdict, each with its
// audit entry, through the row functions every store writes them with.
Result<TrajectoryStore::StoredVerdict> TrajectoryStore::storeSolutionAndVerdict(const QString& taskId,
                                                                                const QString& code, const Verdict& v,
                                                                                const QString& actor,
                                                                                const QString& solutionTime)
{
    if (Status st = store::checkVerdict(v); !st)  // before the solution: a refused verdict costs no savepoint
        return st.error();
    auto solution = store::writeSolution(m_db, taskId, code, QStringLiteral("agent"), actor, solutionTime);
    if (!solution)
        return solution.error();
    auto verdict = store::writeVerdict(m_db, solution->solution.id, v, actor);
    if (!verdict)
        return verdict.error();
    return StoredVerdict{solution->solution.id, verdict->id, solution->created};
}

Result<TrajectoryStep> TrajectoryStore::recordStep(const AgentRun& run, TrajectoryStep given,
                                                   const std::optional<Verdict>& givenVerdict, bool best,
                                                   const QString& actor)
{
    TrajectoryStep step = scrubbed(std::move(given), m_secrets);
    const std::optional<Verdict> verdict =
        givenVerdict ? std::optional<Verdict>(scrubbed(*givenVerdict, m_secrets)) : std::nullopt;
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    step.runId = run.id;
    if (verdict && !step.code.isEmpty()) {
        auto sol = storeSolutionAndVerdict(run.taskId, step.code, *verdict, actor);
        if (!sol)
            return sol.error();
        step.solutionId = sol->solutionId;
        step.verdictId = sol->verdictId;
        step.status = toString(verdict->status);
        step.speedup = verdict->speedup;
        step.summary = verdict->summary;
    }
    const QString now = store::nowText();
    step.createdAt = parseIsoUtc(now).value_or(QDateTime());
    auto id = store::writeStep(m_db, run.id, step, now);
    if (!id)
        return id.error();
    step.id = id.value();
    if (step.solutionId) {
        if (Status st = store::linkSolutionToStep(m_db, step.solutionId, step.id); !st)
            return st.error();
    }
    auto upd = m_db.exec(QStringLiteral("UPDATE runs SET stage = ?, totals = ?, best_step_id = "
                                        "CASE WHEN ? THEN ? ELSE best_step_id END WHERE id = ?"),
                         {toString(run.stage), QString::fromUtf8(json::write(m_secrets.scrub(run.totals))),
                          best ? 1 : 0, step.id, run.id});
    if (!upd)
        return upd.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return step;
}

}  // namespace km
