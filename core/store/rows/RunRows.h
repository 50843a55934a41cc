#pragma once
// What every reader of a `runs` row decodes the same way: its state and stage texts (TrajectoryStore's AgentRun,
// RunQuery's RunSummary). Inside the caller's read, on the thread that owns the Database.

#include "model/Trajectory.h"
#include "util/Result.h"

namespace km::store {

struct RunPhase {
    RunState state = RunState::Running;
    Stage stage = Stage::Implement;
};

// The run's state and stage; a text that names none is a damaged row naming the run ("unknown run state 'x'").
Result<RunPhase> runPhase(qint64 runId, const QString& state, const QString& stage);

}  // namespace km::store
