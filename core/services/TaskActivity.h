#pragma once
// What has been done with a task beyond its review: its solutions (how many, accepted, passing, the best speedup of
// a passing verdict) and its agent runs (how many, running, the best speedup). A value read in one query per table;
// what the task list and detail view show so that a reviewer sees a task has work to review.

#include "util/Result.h"

#include <QString>
#include <optional>

namespace km {

namespace store {
class Database;
}

struct TaskActivity {
    QString taskId;
    int solutions = 0;
    int acceptedSolutions = 0;
    int passingSolutions = 0;           // with at least one PASSED verdict
    std::optional<double> bestSpeedup;  // of a PASSED verdict
    int runs = 0;
    int runningRuns = 0;
    std::optional<double> bestRunSpeedup;  // the runs' totals.best_speedup

    bool empty() const { return solutions == 0 && runs == 0; }
    // "3 solutions (1 accepted, 2 passing, best 1.92x) · 2 agent runs (1 running, best 1.92x)"; empty when none.
    QString summary() const;
};

// On the thread that owns `db`.
Result<TaskActivity> readTaskActivity(store::Database& db, const QString& taskId);

}  // namespace km
