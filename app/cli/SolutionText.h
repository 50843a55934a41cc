#pragma once
// Solutions as text and JSON for `kmosaic solutions list / show / history`. Pure, any thread.

#include "model/Review.h"
#include "services/SolutionReviewService.h"

#include <QVariantMap>

namespace km::cli {

// "ok" when the gate is met, else the unmet rule ids ("gpu,harness").
QString gateText(const QList<GateRule>& unmet);
// [{id, message}, ...]
QVariantList gateToVariant(const QList<GateRule>& unmet);
// One queue row: id, task_id, origin, created_at, review_status, verdicts, latest_status, latest_speedup, gpu,
// device, harness_version, last_reviewer, last_reviewed_at, parent_id (null: none), gate_ok, gate.
QVariantMap listingToVariant(const SolutionListing& s);
// One decision: id, solution_id, task_id, reviewer, at, from, to, reason, comment, override (rule ids).
QVariantMap reviewToVariant(const ReviewRecord& r);
// "draft -> accepted", with " (override: gpu)" for an override.
QString decisionText(const ReviewRecord& r);

}  // namespace km::cli
