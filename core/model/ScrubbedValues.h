#pragma once
// Verdicts, steps and runs with every text field scrubbed of known secrets (util/SecretScrubber.h): what the
// stores write and bundles carry. Pure; any thread.

#include "model/Trajectory.h"
#include "model/Verdict.h"
#include "util/SecretScrubber.h"

namespace km {

Verdict scrubbed(Verdict v, const SecretScrubber& secrets);
TrajectoryStep scrubbed(TrajectoryStep step, const SecretScrubber& secrets);
AgentRun scrubbed(AgentRun run, const SecretScrubber& secrets);
BundledRun scrubbed(BundledRun run, const SecretScrubber& secrets);

}  // namespace km
