#pragma once
// The one writer and reader of `trajectory_steps` rows (TrajectoryStore, live and imported runs). Runs inside
// whatever transaction the caller has open, on the thread that owns the Database. The step's solution and verdict
// (if any) are stored before it (SolutionRows, VerdictRows); scrubbing secrets is the caller's job.

#include "model/Trajectory.h"
#include "util/Result.h"

#include <optional>

namespace km::store {

class Database;

// The row of a step of run `runId`; `createdAt` as the store writes times. Returns its id.
Result<qint64> writeStep(Database& db, qint64 runId, const TrajectoryStep& step, const QString& createdAt);

// The steps of a run, in order.
Result<QList<TrajectoryStep>> readSteps(Database& db, qint64 runId);
// One step by its id; nullopt when there is none.
Result<std::optional<TrajectoryStep>> readStep(Database& db, qint64 stepId);

}  // namespace km::store
