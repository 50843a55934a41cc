#include "store/TrajectoryStore.h"

#include "model/ScrubbedValues.h"
#include "model/VerdictCodec.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/Row.h"
#include "store/StoreErrors.h"
#include "store/rows/RunRows.h"
#include "store/rows/StepRows.h"
#include "util/Json.h"
#include "util/Logging.h"

#include <QSqlQuery>

namespace km {

namespace {
const char* const kRunColumns = "id, task_id, kind, model, prompt_version, settings, state, started_at, ended_at, "
                                "owner, budgets, totals, stage, error, cancel_requested, best_step_id";

QVariant parsed(const QVariant& column)
{
    json::ParseError e;
    return json::parse(column.toString().toUtf8(), &e).value_or(QVariant());
}

QDateTime timeOf(const QVariant& column)
{
    return column.isNull() ? QDateTime() : parseIsoUtc(column.toString()).value_or(QDateTime());
}

Result<AgentRun> runFromRow(store::Row& row)
{
    AgentRun r;
    r.id = row.integer("id");
    r.taskId = row.text("task_id");
    r.kind = row.text("kind");
    r.model = row.text("model");
    r.promptVersion = row.text("prompt_version");
    r.settings = parsed(row.value("settings")).toMap();
    r.startedAt = timeOf(row.value("started_at"));
    r.endedAt = timeOf(row.value("ended_at"));
    r.owner = row.text("owner");
    r.budgets = parsed(row.value("budgets")).toMap();
    r.totals = parsed(row.value("totals")).toMap();
    r.error = row.text("error");
    r.cancelRequested = row.integer("cancel_requested") != 0;
    r.bestStepId = row.integer("best_step_id");
    const QString state = row.text("state");
    const QString stage = row.text("stage");
    if (Status st = row.status(); !st)
        return st.error();
    const auto phase = store::runPhase(r.id, state, stage);
    if (!phase)
        return phase.error();
    r.state = phase->state;
    r.stage = phase->stage;
    return r;
}

QString jsonText(const QVariant& v)
{
    return QString::fromUtf8(json::write(v));
}
}  // namespace

Result<AgentRun> TrajectoryStore::createRun(AgentRun given, const QString& actor)
{
    AgentRun run = scrubbed(std::move(given), m_secrets);
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto task = m_db.exec(QStringLiteral("SELECT 1 FROM tasks WHERE id = ?"), {run.taskId});
    if (!task)
        return task.error();
    if (!task.value().next())
        return makeError(ErrorCode::NotFound, QStringLiteral("no task with id '%1'").arg(run.taskId));
    const QString now = store::nowText();
    run.state = RunState::Running;
    run.owner = thisOwner();
    run.startedAt = parseIsoUtc(now).value_or(QDateTime());
    auto ins =
        m_db.exec(QStringLiteral("INSERT INTO runs(task_id, kind, model, prompt_version, settings, state, "
                                 "started_at, owner, budgets, totals, stage) VALUES (?,?,?,?,?,?,?,?,?,?,?)"),
                  {run.taskId, run.kind, run.model, run.promptVersion, jsonText(run.settings), toString(run.state), now,
                   run.owner, jsonText(run.budgets), jsonText(run.totals), toString(run.stage)});
    if (!ins)
        return ins.error();
    run.id = ins.value().lastInsertId().toLongLong();
    if (Status st =
            store::appendAudit(m_db, actor, QStringLiteral("run"), QString::number(run.id), QStringLiteral("started"),
                               {}, {{QStringLiteral("task_id"), run.taskId}, {QStringLiteral("kind"), run.kind}});
        !st)
        return st.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return run;
}

Status TrajectoryStore::finishRun(qint64 runId, RunState state, const QString& error, const QVariantMap& totals)
{
    auto q = m_db.exec(
        QStringLiteral("UPDATE runs SET state = ?, error = ?, totals = ?, ended_at = ? WHERE id = ?"),
        {toString(state), m_secrets.scrub(error), jsonText(m_secrets.scrub(totals)), store::nowText(), runId});
    if (!q)
        return q.error();
    return {};
}

Status TrajectoryStore::requestCancel(qint64 runId)
{
    auto q = m_db.exec(QStringLiteral("UPDATE runs SET cancel_requested = 1 WHERE id = ? AND state = ?"),
                       {runId, toString(RunState::Running)});
    if (!q)
        return q.error();
    if (q.value().numRowsAffected() == 0) {
        auto r = run(runId);
        if (!r)
            return r.error();
        if (!r.value())
            return makeError(ErrorCode::NotFound, QStringLiteral("no agent run with id %1").arg(runId));
        return makeError(ErrorCode::Conflict,
                         QStringLiteral("agent run %1 is %2, not running").arg(runId).arg(toString(r.value()->state)));
    }
    return {};
}

Result<bool> TrajectoryStore::cancelRequested(qint64 runId)
{
    auto q = m_db.exec(QStringLiteral("SELECT cancel_requested FROM runs WHERE id = ?"), {runId});
    if (!q)
        return q.error();
    store::Row row(q.value());
    const bool requested = q.value().next() && row.integer("cancel_requested") != 0;
    if (Status st = row.status(); !st)
        return st.error();
    return requested;
}

Result<QList<qint64>> TrajectoryStore::markDeadRunsInterrupted()
{
    const QString running = toString(RunState::Running);
    auto q = m_db.exec(QStringLiteral("SELECT id, owner FROM runs WHERE state = ?"), {running});
    if (!q)
        return q.error();
    store::Row row(q.value());
    QList<qint64> dead;
    while (q.value().next()) {
        if (!ownerAlive(row.text("owner")))
            dead.append(row.integer("id"));
    }
    if (Status st = row.status(); !st)
        return st.error();
    for (qint64 id : dead) {
        auto u = m_db.exec(QStringLiteral("UPDATE runs SET state = ?, ended_at = ?, error = "
                                          "'the process running it ended without finishing it' "
                                          "WHERE id = ? AND state = ?"),
                           {toString(RunState::Interrupted), store::nowText(), id, running});
        if (!u)
            return u.error();
        qCInfo(lcAgent) << "agent run" << id << "was left running by a process that is gone: interrupted";
    }
    return dead;
}

Result<AgentRun> TrajectoryStore::claimForResume(qint64 runId)
{
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto r = run(runId);
    if (!r)
        return r.error();
    if (!r.value())
        return makeError(ErrorCode::NotFound, QStringLiteral("no agent run with id %1").arg(runId));
    AgentRun a = *r.value();
    if (a.state == RunState::Completed)
        return makeError(ErrorCode::Conflict,
                         QStringLiteral("agent run %1 is completed: nothing to resume").arg(runId));
    if (a.state == RunState::Running && ownerAlive(a.owner))
        return makeError(ErrorCode::Conflict,
                         QStringLiteral("agent run %1 is running in process %2").arg(runId).arg(a.owner));
    a.state = RunState::Running;
    a.owner = thisOwner();
    a.error.clear();
    a.cancelRequested = false;
    auto u = m_db.exec(QStringLiteral("UPDATE runs SET state = ?, owner = ?, error = '', cancel_requested = 0, "
                                      "ended_at = NULL WHERE id = ?"),
                       {toString(a.state), a.owner, runId});
    if (!u)
        return u.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return a;
}

Result<std::optional<AgentRun>> TrajectoryStore::run(qint64 runId)
{
    auto q = m_db.exec(QStringLiteral("SELECT %1 FROM runs WHERE id = ?").arg(QLatin1String(kRunColumns)), {runId});
    if (!q)
        return q.error();
    if (!q.value().next())
        return std::optional<AgentRun>();
    store::Row row(q.value());
    auto r = runFromRow(row);
    if (!r)
        return r.error();
    return std::optional<AgentRun>(std::move(r).value());
}

Result<QList<AgentRun>> TrajectoryStore::runs(const QString& taskId, int limit)
{
    QString sql = QStringLiteral("SELECT %1 FROM runs").arg(QLatin1String(kRunColumns));
    QVariantList b;
    if (!taskId.isEmpty()) {
        sql += QStringLiteral(" WHERE task_id = ?");
        b << taskId;
    }
    sql += QStringLiteral(" ORDER BY id DESC");
    if (limit > 0)
        sql += QStringLiteral(" LIMIT %1").arg(limit);
    auto q = m_db.exec(sql, b);
    if (!q)
        return q.error();
    return store::readRows<AgentRun>(q.value(), runFromRow);
}

Result<QList<TrajectoryStep>> TrajectoryStore::steps(qint64 runId)
{
    return store::readSteps(m_db, runId);
}

}  // namespace km
