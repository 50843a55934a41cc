#pragma once
// Review decisions and audit-log entries as values.

#include "model/Task.h"

#include <QDateTime>
#include <QVariantMap>

namespace km {

// A review decision: on a task, or on one of its solutions (solutionId set; reviews.solution_id).
struct ReviewRecord {
    qint64 id = 0;
    QString taskId;
    qint64 solutionId = 0;  // 0: a decision on the task itself
    QString reviewer;
    QDateTime at;
    ReviewStatus from = ReviewStatus::Draft;
    ReviewStatus to = ReviewStatus::Draft;
    QString reason;
    QString comment;
    // A solution accepted past the acceptance gate: the ids of the rules it did not meet (AcceptanceGate.h);
    // empty for a plain decision.
    QStringList overriddenRules;
    bool isOverride() const { return !overriddenRules.isEmpty(); }
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
