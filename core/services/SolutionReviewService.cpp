#include "services/SolutionReviewService.h"

#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/VerdictStore.h"
#include "store/rows/ReviewRows.h"
#include "store/rows/SolutionRows.h"
#include "verify/HarnessLaunch.h"

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

}  // namespace

SolutionReviewService::SolutionReviewService(store::Database& db, QString currentHarness)
    : m_db(db)
    , m_currentHarness(currentHarness.isEmpty() ? harnessVersion() : std::move(currentHarness))
{
}

Result<ReviewRecord> SolutionReviewService::decide(qint64 solutionId, ReviewStatus to, const QString& reviewer,
                                                   const QString& reason, const QString& comment, bool overrideGate)
{
    if (reviewer.trimmed().isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("a review needs a reviewer name"));
    if (overrideGate && to == ReviewStatus::Accepted && reason.trimmed().isEmpty() && comment.trimmed().isEmpty())
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("overriding the acceptance gate needs a written reason or comment"));
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto state = solutionState(m_db, solutionId);
    if (!state)
        return state.error();
    QStringList overridden;
    if (to == ReviewStatus::Accepted) {
        auto latest = VerdictStore(m_db).latestVerdict(solutionId);
        if (!latest)
            return latest.error();
        const QList<GateRule> unmet = unmetGateRules(latest.value(), m_currentHarness);
        if (!unmet.isEmpty() && !overrideGate)
            return makeError(ErrorCode::Conflict,
                             QStringLiteral("solution %1 cannot be accepted: %2 (accept it with an override and a "
                                            "written reason)")
                                 .arg(solutionId)
                                 .arg(describeGateRules(unmet)));
        overridden = gateRuleIdsOf(unmet);
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
    r.overriddenRules = overridden;
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
                                       {QStringLiteral("task_id"), r.taskId},
                                       {QStringLiteral("override"), overridden}});
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

Result<QList<GateRule>> SolutionReviewService::gate(qint64 solutionId)
{
    if (auto state = solutionState(m_db, solutionId); !state)
        return state.error();
    auto latest = VerdictStore(m_db).latestVerdict(solutionId);
    if (!latest)
        return latest.error();
    return unmetGateRules(latest.value(), m_currentHarness);
}

Result<Solution> SolutionReviewService::addFix(qint64 parentId, const QString& code, const QString& actor)
{
    if (code.trimmed().isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("a fixed solution needs code"));
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto parent = store::readSolution(m_db, parentId);
    if (!parent)
        return parent.error();
    if (!parent->has_value())
        return makeError(ErrorCode::NotFound, QStringLiteral("no solution with id %1").arg(parentId));
    auto written = store::writeSolution(m_db, parent->value().taskId, code, QStringLiteral("manual"), actor);
    if (!written)
        return written.error();
    if (!written->created)
        return makeError(ErrorCode::InvalidInput,
                         written->solution.id == parentId
                             ? QStringLiteral("the fixed code is the same as solution %1's").arg(parentId)
                             : QStringLiteral("this code is stored already, as solution %1").arg(written->solution.id));
    const qint64 id = written->solution.id;
    if (auto u = m_db.exec(QStringLiteral("UPDATE solutions SET parent_id = ? WHERE id = ?"), {parentId, id}); !u)
        return u.error();
    if (Status s = store::appendAudit(
            m_db, actor, QStringLiteral("solution"), QString::number(id), QStringLiteral("fixed"), {},
            {{QStringLiteral("parent_id"), parentId}, {QStringLiteral("task_id"), written->solution.taskId}});
        !s)
        return s.error();
    if (Status s = tx.commit(); !s)
        return s.error();
    return written->solution;
}

Result<QList<ReviewRecord>> SolutionReviewService::history(qint64 solutionId)
{
    if (auto state = solutionState(m_db, solutionId); !state)
        return state.error();
    return store::readSolutionReviews(m_db, solutionId);
}

}  // namespace km
