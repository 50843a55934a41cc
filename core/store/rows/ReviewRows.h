#pragma once
// The one writer and reader of `reviews` rows: decisions on a task (solution_id NULL, TaskStore::review) and on one
// of its solutions (SolutionReviewService). Runs inside the caller's transaction, on the thread that owns the
// Database; the caller updates the status it decided and writes the audit entry.

#include "model/Review.h"
#include "util/Result.h"

namespace km::store {

class Database;

// Inserts `r` (taskId, solutionId or 0, reviewer, at, from, to, reason, comment) and sets r.id.
Status writeReview(Database& db, ReviewRecord& r);
// A task's own decisions (not its solutions'), oldest first.
Result<QList<ReviewRecord>> readTaskReviews(Database& db, const QString& taskId);
// One solution's decisions, oldest first.
Result<QList<ReviewRecord>> readSolutionReviews(Database& db, qint64 solutionId);

}  // namespace km::store
