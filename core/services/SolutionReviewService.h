#pragma once
// Decisions on solutions: accept, reject, needs changes (or back to draft / in review), with reviewer, reason and
// comment, in one transaction with the solution's review_status and an audit entry. Accepting needs the
// solution's latest verdict to be PASSED: a verdict is what an acceptance rests on (docs/verification.md). Lives on
// the thread that owns the Database it is given.

#include "model/Review.h"
#include "util/Result.h"

namespace km {

namespace store {
class Database;
}

// One row of the solution review queue: a stored solution, where it stands, and its latest verdict.
struct SolutionListing {
    qint64 id = 0;
    QString taskId;
    QString origin;  // manual, agent, import
    QDateTime createdAt;
    ReviewStatus reviewStatus = ReviewStatus::Draft;
    int verdicts = 0;
    QString latestStatus;  // the latest verdict's status; empty without one
    std::optional<double> latestSpeedup;
};

// What a listing asks for; empty fields select all.
struct SolutionFilter {
    QString taskId;
    QList<ReviewStatus> reviewStatuses;  // any of
    int limit = 0;                       // 0: no limit
};

class SolutionReviewService {
public:
    explicit SolutionReviewService(store::Database& db) : m_db(db) {}

    // NotFound for an unknown solution; InvalidInput without a reviewer; Conflict when accepting a solution whose
    // latest verdict is not PASSED (or that has none). Nothing is written on an error.
    Result<ReviewRecord> decide(qint64 solutionId, ReviewStatus to, const QString& reviewer, const QString& reason = {},
                                const QString& comment = {});
    // The solution's review status (draft until decided); NotFound for an unknown solution.
    Result<ReviewStatus> status(qint64 solutionId);
    // Its decisions, oldest first.
    Result<QList<ReviewRecord>> history(qint64 solutionId);
    // The review queue, newest solution first.
    Result<QList<SolutionListing>> list(const SolutionFilter& filter = {});

private:
    store::Database& m_db;
};

}  // namespace km
