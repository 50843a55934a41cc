#include "services/SolutionReviewService.h"

#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/rows/ReviewRows.h"

#include <QSqlQuery>

namespace km {

namespace {
struct SolutionState {
    QString taskId;
    ReviewStatus status = ReviewStatus::Draft;
};

Result<SolutionState> solutionState(store::Database& db, qint64 solutionId)
{
    auto q = db.exec(QStringLiteral("SELECT task_id, review_status FROM solutions WHERE id = ?"), {solutionId});
    if (!q)
        return q.error();
    QSqlQuery row = std::move(q).value();
    if (!row.next())
        return makeError(ErrorCode::NotFound, QStringLiteral("no solution with id %1").arg(solutionId));
    const QString text = row.value(QStringLiteral("review_status")).toString();
    const auto status = reviewStatusFromString(text);
    if (!status)
        return makeError(ErrorCode::Database,
                         QStringLiteral("solution %1 in the store is damaged: unknown review status '%2'")
                             .arg(solutionId)
                             .arg(text));
    return SolutionState{row.value(QStringLiteral("task_id")).toString(), *status};
}

// The status of the solution's latest verdict (the order VerdictStore::latestVerdict uses); empty: none.
Result<QString> latestVerdictStatus(store::Database& db, qint64 solutionId)
{
    auto q = db.exec(QStringLiteral("SELECT status FROM verdicts WHERE solution_id = ? "
                                    "ORDER BY created_at DESC, id DESC LIMIT 1"),
                     {solutionId});
    if (!q)
        return q.error();
    QSqlQuery row = std::move(q).value();
    return row.next() ? row.value(QStringLiteral("status")).toString() : QString();
}
}  // namespace

Result<ReviewRecord> SolutionReviewService::decide(qint64 solutionId, ReviewStatus to, const QString& reviewer,
                                                   const QString& reason, const QString& comment)
{
    if (reviewer.trimmed().isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("a review needs a reviewer name"));
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto state = solutionState(m_db, solutionId);
    if (!state)
        return state.error();
    if (to == ReviewStatus::Accepted) {
        auto latest = latestVerdictStatus(m_db, solutionId);
        if (!latest)
            return latest.error();
        if (latest.value() != QLatin1String("PASSED"))
            return makeError(
                ErrorCode::Conflict,
                latest->isEmpty()
                    ? QStringLiteral("solution %1 has no verdict: verify it before accepting it").arg(solutionId)
                    : QStringLiteral("solution %1 cannot be accepted: its latest verdict is %2, not "
                                     "PASSED")
                          .arg(solutionId)
                          .arg(latest.value()));
    }
    ReviewRecord r;
    r.solutionId = solutionId;
    r.taskId = state->taskId;
    r.reviewer = reviewer;
    r.at = QDateTime::currentDateTimeUtc();
    r.from = state->status;
    r.to = to;
    r.reason = reason;
    r.comment = comment;
    if (Status st = store::writeReview(m_db, r); !st)
        return st.error();
    if (auto u = m_db.exec(QStringLiteral("UPDATE solutions SET review_status = ? WHERE id = ?"),
                           {toString(to), solutionId});
        !u)
        return u.error();
    if (Status s = store::appendAudit(m_db, reviewer, QStringLiteral("solution"), QString::number(solutionId),
                                      QStringLiteral("status"), reason,
                                      {{QStringLiteral("from"), toString(r.from)},
                                       {QStringLiteral("to"), toString(to)},
                                       {QStringLiteral("comment"), comment},
                                       {QStringLiteral("review_id"), r.id},
                                       {QStringLiteral("task_id"), r.taskId}});
        !s)
        return s.error();
    if (Status s = tx.commit(); !s)
        return s.error();
    return r;
}

Result<ReviewStatus> SolutionReviewService::status(qint64 solutionId)
{
    auto state = solutionState(m_db, solutionId);
    if (!state)
        return state.error();
    return state->status;
}

Result<QList<ReviewRecord>> SolutionReviewService::history(qint64 solutionId)
{
    if (auto state = solutionState(m_db, solutionId); !state)
        return state.error();
    return store::readSolutionReviews(m_db, solutionId);
}

Result<QList<SolutionListing>> SolutionReviewService::list(const SolutionFilter& f)
{
    // The latest verdict of each solution in the order latestVerdictStatus() uses.
    QString sql = QStringLiteral(
        "SELECT s.id, s.task_id, s.origin, s.created_at, s.review_status, "
        "(SELECT COUNT(*) FROM verdicts v WHERE v.solution_id = s.id) AS verdicts, "
        "(SELECT v.status FROM verdicts v WHERE v.solution_id = s.id ORDER BY v.created_at DESC, v.id DESC LIMIT 1) "
        "AS latest_status, "
        "(SELECT v.speedup FROM verdicts v WHERE v.solution_id = s.id ORDER BY v.created_at DESC, v.id DESC LIMIT 1) "
        "AS latest_speedup FROM solutions s WHERE 1");
    QVariantList bindings;
    if (!f.taskId.isEmpty()) {
        sql += QStringLiteral(" AND s.task_id = ?");
        bindings << f.taskId;
    }
    if (!f.reviewStatuses.isEmpty()) {
        QStringList marks;
        for (ReviewStatus st : f.reviewStatuses) {
            marks << QStringLiteral("?");
            bindings << toString(st);
        }
        sql += QStringLiteral(" AND s.review_status IN (%1)").arg(marks.join(QLatin1Char(',')));
    }
    sql += QStringLiteral(" ORDER BY s.created_at DESC, s.id DESC");
    if (f.limit > 0) {
        sql += QStringLiteral(" LIMIT ?");
        bindings << f.limit;
    }
    auto q = m_db.exec(sql, bindings);
    if (!q)
        return q.error();
    QSqlQuery row = std::move(q).value();
    QList<SolutionListing> out;
    while (row.next()) {
        SolutionListing l;
        l.id = row.value(QStringLiteral("id")).toLongLong();
        l.taskId = row.value(QStringLiteral("task_id")).toString();
        l.origin = row.value(QStringLiteral("origin")).toString();
        l.createdAt = QDateTime::fromString(row.value(QStringLiteral("created_at")).toString(), Qt::ISODateWithMs);
        l.reviewStatus =
            reviewStatusFromString(row.value(QStringLiteral("review_status")).toString()).value_or(ReviewStatus::Draft);
        l.verdicts = row.value(QStringLiteral("verdicts")).toInt();
        l.latestStatus = row.value(QStringLiteral("latest_status")).toString();
        if (!row.isNull(QStringLiteral("latest_speedup")))
            l.latestSpeedup = row.value(QStringLiteral("latest_speedup")).toDouble();
        out.append(l);
    }
    return out;
}

}  // namespace km
