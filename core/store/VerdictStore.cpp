#include "store/VerdictStore.h"

#include "model/ScrubbedValues.h"
#include "model/VerdictCodec.h"
#include "store/Database.h"
#include "store/Row.h"
#include "store/StoreErrors.h"
#include "store/rows/SolutionRows.h"
#include "store/rows/VerdictRows.h"

#include <QSqlQuery>

namespace km {

Result<Solution> VerdictStore::addSolution(const QString& taskId, const QString& code, const QString& origin,
                                           const QString& actor)
{
    auto written = store::writeSolution(m_db, taskId, m_secrets.scrub(code), origin, actor);
    if (!written)
        return written.error();
    return std::move(written).value().solution;
}

Result<Verdict> VerdictStore::addVerdict(qint64 solutionId, const Verdict& v, const QString& actor)
{
    return store::writeVerdict(m_db, solutionId, scrubbed(v, m_secrets), actor);
}

Result<Verdict> VerdictStore::recordVerified(const QString& taskId, const QString& code, const QString& origin,
                                             const Verdict& v, const QString& actor)
{
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto solution = addSolution(taskId, code, origin, actor);
    if (!solution)
        return solution.error();
    auto stored = addVerdict(solution.value().id, v, actor);
    if (!stored)
        return stored.error();
    if (Status s = tx.commit(); !s)
        return s.error();
    return stored;
}

Result<std::optional<Verdict>> VerdictStore::verdict(qint64 id)
{
    return store::readVerdict(m_db, id);
}

Result<std::optional<Solution>> VerdictStore::solution(qint64 id)
{
    return store::readSolution(m_db, id);
}

Result<QList<VerdictSummary>> VerdictStore::verdicts(const VerdictFilter& f)
{
    QString sql = QStringLiteral("SELECT v.id, v.solution_id, s.task_id, v.status, v.created_at, v.summary, v.speedup "
                                 "FROM verdicts v JOIN solutions s ON s.id = v.solution_id WHERE 1");
    QVariantList b;
    if (!f.taskId.isEmpty()) {
        sql += QStringLiteral(" AND s.task_id = ?");
        b << f.taskId;
    }
    if (f.solutionId != 0) {
        sql += QStringLiteral(" AND v.solution_id = ?");
        b << f.solutionId;
    }
    if (!f.statuses.isEmpty()) {
        QStringList marks;
        for (VerdictStatus st : f.statuses) {
            const QString name = toString(st);
            if (name.isEmpty())
                return makeError(ErrorCode::InvalidInput,
                                 QStringLiteral("verdict status %1 is outside the taxonomy").arg(int(st)));
            marks << QStringLiteral("?");
            b << name;
        }
        sql += QStringLiteral(" AND v.status IN (%1)").arg(marks.join(QLatin1Char(',')));
    }
    sql += QStringLiteral(" ORDER BY v.created_at DESC, v.id DESC");
    if (f.limit > 0) {
        sql += QStringLiteral(" LIMIT ?");
        b << f.limit;
    }
    auto q = m_db.exec(sql, b);
    if (!q)
        return q.error();
    QSqlQuery query = std::move(q).value();
    store::Row row(query);
    QList<VerdictSummary> out;
    while (query.next()) {
        VerdictSummary s;
        s.id = row.integer("id");
        s.solutionId = row.integer("solution_id");
        s.taskId = row.text("task_id");
        const QString statusText = row.text("status");
        s.createdAt = parseIsoUtc(row.text("created_at")).value_or(QDateTime());
        s.summary = row.text("summary");
        s.speedup = row.optionalReal("speedup");
        if (Status st = row.status(); !st)
            return st.error();
        const auto status = verdictStatusFromString(statusText);
        if (!status)  // the schema's CHECK makes this a damaged file
            return store::damagedRow(QStringLiteral("verdict"), s.id, QStringLiteral("unknown status ") + statusText);
        s.status = *status;
        out.append(s);
    }
    return out;
}

Result<std::optional<Verdict>> VerdictStore::latestVerdict(qint64 solutionId)
{
    if (solutionId <= 0)
        return std::optional<Verdict>();
    VerdictFilter f;
    f.solutionId = solutionId;
    f.limit = 1;
    auto list = verdicts(f);
    if (!list)
        return list.error();
    if (list.value().isEmpty())
        return std::optional<Verdict>();
    return verdict(list.value().first().id);
}

}  // namespace km
