#pragma once
// What has been done with a task beyond its review: its solutions (how many, accepted, passing, the best speedup of
// a passing verdict) and its agent runs (how many, running, the best speedup). A value read in one query per table;
// what the task list and detail view show so that a reviewer sees a task has work to review.

#include "util/Result.h"

#include <QHash>
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
    // For a table cell: "2 runs · 3 sol · 9.81x"; empty when none.
    QString shortText() const;
    // The best speedup of either (for sorting); nullopt when neither has one.
    std::optional<double> best() const;
};

// On the thread that owns `db`. A task with neither solutions nor runs reads as an empty activity.
Result<TaskActivity> readTaskActivity(store::Database& db, const QString& taskId);
// Every task that has solutions or runs (two grouped queries), or only `taskId`'s when given.
Result<QHash<QString, TaskActivity>> readTaskActivities(store::Database& db, const QString& taskId = {});

}  // namespace km
