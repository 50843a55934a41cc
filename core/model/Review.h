#pragma once
// Review decisions and audit-log entries as values.

#include "model/Task.h"

#include <QDateTime>
#include <QVariantMap>

namespace km {

struct ReviewRecord {
    qint64 id = 0;
    QString taskId;
    QString reviewer;
    QDateTime at;
    ReviewStatus from = ReviewStatus::Draft;
    ReviewStatus to = ReviewStatus::Draft;
    QString reason;
    QString comment;
};

// A decision on one solution of a task (reviews.solution_id set): accept, reject, needs changes, or back.
struct SolutionReviewRecord {
    qint64 id = 0;
    qint64 solutionId = 0;
    QString taskId;
    QString reviewer;
    QDateTime at;
    ReviewStatus from = ReviewStatus::Draft;
    ReviewStatus to = ReviewStatus::Draft;
    QString reason;
    QString comment;
};

struct AuditEntry {
    qint64 id = 0;
    QDateTime at;
    QString actor;
    QString entity;  // task, solution, run, store
    QString entityId;
    QString action;  // created, updated, status, ...
    QString reason;
    QVariantMap detail;
};

}  // namespace km
