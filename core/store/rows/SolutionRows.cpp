#include "store/rows/SolutionRows.h"

#include "model/VerdictCodec.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/Row.h"

#include <QCryptographicHash>

namespace km::store {

namespace {
const QStringList kOrigins{QStringLiteral("manual"), QStringLiteral("agent"), QStringLiteral("import")};
const char* const kSolutionColumns = "id, task_id, code, code_hash, origin, created_at";

Result<Solution> solutionFromRow(const QSqlQuery& q)
{
    Row row(q);  // one row per query
    Solution s;
    s.id = row.integer("id");
    s.taskId = row.text("task_id");
    s.code = row.text("code");
    s.codeHash = row.text("code_hash");
    s.origin = row.text("origin");
    s.createdAt = parseIsoUtc(row.text("created_at")).value_or(QDateTime());
    if (Status st = row.status(); !st)
        return st.error();
    return s;
}
}  // namespace

Result<SolutionWrite> writeSolution(Database& db, const QString& taskId, const QString& code, const QString& origin,
                                    const QString& actor, const QString& createdAt)
{
    if (!kOrigins.contains(origin))
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("unknown solution origin '%1' (manual, agent, import)").arg(origin));
    const QString hash =
        QString::fromLatin1(QCryptographicHash::hash(code.toUtf8(), QCryptographicHash::Sha256).toHex());
    Transaction tx(db);
    if (!tx.started())
        return tx.started().error();
    auto task = db.exec(QStringLiteral("SELECT 1 FROM tasks WHERE id = ?"), {taskId});
    if (!task)
        return task.error();
    if (!task.value().next())
        return makeError(ErrorCode::NotFound, QStringLiteral("no task with id '%1'").arg(taskId));
    auto existing = db.exec(QStringLiteral("SELECT %1 FROM solutions WHERE task_id = ? AND code_hash = ?")
                                .arg(QLatin1String(kSolutionColumns)),
                            {taskId, hash});
    if (!existing)
        return existing.error();
    if (existing.value().next()) {  // the same code again: nothing to write
        auto stored = solutionFromRow(existing.value());
        if (!stored)
            return stored.error();
        return SolutionWrite{std::move(stored).value(), false};
    }

    Solution s;
    s.taskId = taskId;
    s.code = code;
    s.codeHash = hash;
    s.origin = origin;
    const QString created = createdAt.isEmpty() ? nowText() : createdAt;
    s.createdAt = parseIsoUtc(created).value_or(QDateTime());
    auto ins = db.exec(
        QStringLiteral("INSERT INTO solutions(task_id, code, code_hash, origin, created_at) VALUES (?,?,?,?,?)"),
        {taskId, code, hash, origin, created});
    if (!ins)
        return ins.error();
    s.id = ins.value().lastInsertId().toLongLong();
    if (Status st =
            appendAudit(db, actor, QStringLiteral("solution"), QString::number(s.id), QStringLiteral("created"), {},
                        {{QStringLiteral("task_id"), taskId},
                         {QStringLiteral("origin"), origin},
                         {QStringLiteral("code_hash"), hash}});
        !st)
        return st.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return SolutionWrite{s, true};
}

Status linkSolutionToStep(Database& db, qint64 solutionId, qint64 stepId)
{
    auto link = db.exec(QStringLiteral("UPDATE solutions SET step_id = ? WHERE id = ? AND step_id IS NULL"),
                        {stepId, solutionId});
    if (!link)
        return link.error();
    return {};
}

Result<std::optional<Solution>> readSolution(Database& db, qint64 id)
{
    auto q =
        db.exec(QStringLiteral("SELECT %1 FROM solutions WHERE id = ?").arg(QLatin1String(kSolutionColumns)), {id});
    if (!q)
        return q.error();
    if (!q.value().next())
        return std::optional<Solution>();
    auto s = solutionFromRow(q.value());
    if (!s)
        return s.error();
    return std::optional<Solution>(std::move(s).value());
}

}  // namespace km::store
