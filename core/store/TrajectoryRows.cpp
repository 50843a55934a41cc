// TrajectoryStore: runs as rows, and the step's solution and verdict written inside the step's transaction.
#include "store/TrajectoryStore.h"

#include "model/ScrubbedValues.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "util/Json.h"
#include "verify/VerdictJson.h"

#include <QCryptographicHash>
#include <QSqlQuery>
#include <QSysInfo>
#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace km {

namespace {
QVariant nullable(const std::optional<double>& d)
{
    return d ? QVariant(*d) : QVariant();
}
}  // namespace

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

// Inside the caller's transaction: the solution (stored once per task and code, like VerdictStore::addSolution)
// and its verdict, each with its audit entry.
Result<TrajectoryStore::StoredVerdict> TrajectoryStore::storeSolutionAndVerdict(const QString& taskId,
                                                                                const QString& code, const Verdict& v,
                                                                                const QString& actor,
                                                                                const QString& solutionTime)
{
    const QString hash =
        QString::fromLatin1(QCryptographicHash::hash(code.toUtf8(), QCryptographicHash::Sha256).toHex());
    auto existing =
        m_db.exec(QStringLiteral("SELECT id FROM solutions WHERE task_id = ? AND code_hash = ?"), {taskId, hash});
    if (!existing)
        return existing.error();
    StoredVerdict out;
    qint64& solutionId = out.solutionId;
    if (existing.value().next()) {
        solutionId = existing.value().value(0).toLongLong();
    } else {
        auto ins = m_db.exec(QStringLiteral("INSERT INTO solutions(task_id, code, code_hash, origin, created_at) "
                                            "VALUES (?,?,?,'agent',?)"),
                             {taskId, code, hash, solutionTime.isEmpty() ? store::nowText() : solutionTime});
        if (!ins)
            return ins.error();
        solutionId = ins.value().lastInsertId().toLongLong();
        out.newSolution = true;
        if (Status st = store::appendAudit(m_db, actor, QStringLiteral("solution"), QString::number(solutionId),
                                           QStringLiteral("created"), {},
                                           {{QStringLiteral("task_id"), taskId},
                                            {QStringLiteral("origin"), QStringLiteral("agent")},
                                            {QStringLiteral("code_hash"), hash}});
            !st)
            return st.error();
    }
    QVariantMap evidence = v.evidence;
    evidence.insert(QStringLiteral("findings"), findingsToVariant(v.findings));
    evidence.insert(QStringLiteral("diagnostics"), diagnosticsToVariant(v.diagnostics));
    const QString created = v.createdAt.isValid() ? isoUtc(v.createdAt) : store::nowText();
    auto ins = m_db.exec(QStringLiteral("INSERT INTO verdicts(solution_id, status, created_at, harness_version, "
                                        "executor, isolation, summary, environment, evidence, runtime_ms, "
                                        "ref_runtime_ms, speedup) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
                         {solutionId, toString(v.status), created, v.harnessVersion, v.executor, v.isolation, v.summary,
                          QString::fromUtf8(json::write(v.environment)), QString::fromUtf8(json::write(evidence)),
                          nullable(v.runtimeMs), nullable(v.refRuntimeMs), nullable(v.speedup)});
    if (!ins)
        return ins.error();
    out.verdictId = ins.value().lastInsertId().toLongLong();
    if (Status st = store::appendAudit(
            m_db, actor, QStringLiteral("solution"), QString::number(solutionId), QStringLiteral("verified"), {},
            {{QStringLiteral("verdict_id"), out.verdictId}, {QStringLiteral("status"), toString(v.status)}});
        !st)
        return st.error();
    return out;
}

// The trajectory_steps row of a step whose solution and verdict (if any) are stored; returns its id.
Result<qint64> TrajectoryStore::insertStepRow(qint64 runId, const TrajectoryStep& step, const QString& createdAt)
{
    auto ins = m_db.exec(
        QStringLiteral("INSERT INTO trajectory_steps(run_id, idx, stage, messages, code, diff, error, tokens_in, "
                       "tokens_out, latency_ms, created_at, verdict_id, template, prompt, reply, guidance, usage, "
                       "verify_ms, solution_id, status, speedup, summary) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        {runId,
         step.idx,
         step.stage,
         QString::fromUtf8(json::write(step.messages)),
         step.code,
         step.diff,
         step.error,
         step.tokensIn,
         step.tokensOut,
         step.latencyMs,
         createdAt,
         step.verdictId ? QVariant(step.verdictId) : QVariant(),
         step.templateName,
         step.prompt,
         step.reply,
         QString::fromUtf8(json::write(step.guidance)),
         QString::fromUtf8(json::write(step.usage)),
         step.verifyMs,
         step.solutionId ? QVariant(step.solutionId) : QVariant(),
         step.status,
         nullable(step.speedup),
         step.summary});
    if (!ins)
        return ins.error();
    return ins.value().lastInsertId().toLongLong();
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
        if (toString(verdict->status).isEmpty())
            return makeError(ErrorCode::InvalidInput, QStringLiteral("verdict status outside the taxonomy"));
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
    auto id = insertStepRow(run.id, step, now);
    if (!id)
        return id.error();
    step.id = id.value();
    if (step.solutionId) {
        auto link = m_db.exec(QStringLiteral("UPDATE solutions SET step_id = ? WHERE id = ? AND step_id IS NULL"),
                              {step.id, step.solutionId});
        if (!link)
            return link.error();
    }
    auto upd = m_db.exec(QStringLiteral("UPDATE runs SET stage = ?, totals = ?, best_step_id = "
                                        "CASE WHEN ? THEN ? ELSE best_step_id END WHERE id = ?"),
                         {m_secrets.scrub(run.stage), QString::fromUtf8(json::write(m_secrets.scrub(run.totals))),
                          best ? 1 : 0, step.id, run.id});
    if (!upd)
        return upd.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return step;
}

}  // namespace km
