#pragma once
// One agent run on one task: implement, repair until PASSED, optimise until the target, a plateau or the budget.
// Each step (prompt, reply, code, verdict) is stored when it completes. drive() BLOCKS: it runs on a worker thread
// with that thread's own Database; verification is handed to `verify`, which may run it on another thread.

#include "agent/AgentState.h"
#include "agent/Guidance.h"
#include "agent/PromptTemplate.h"
#include "model/Task.h"
#include "model/Trajectory.h"
#include "util/SecretScrubber.h"
#include "verify/Verifier.h"

#include <atomic>
#include <functional>

namespace km {

namespace store {
class Database;
}
class ReplySource;

struct AgentSetup {
    Task task;
    PromptLibrary prompts;
    GuidanceLibrary guidance;
    int guidanceNotes = 3;  // notes per turn at most
    VerifyOptions verify;
    AgentBudgets budgets;
    SecretScrubber secrets;  // the provider's key: scrubbed from everything stored and reported
};

class AgentLoop {
public:
    using VerifyFn = std::function<Verdict(const VerifyJob&)>;
    using StepFn = std::function<void(const AgentRun&, const TrajectoryStep&)>;
    // The reply of step `stepIdx` (0-based) as it arrives: its text so far (ReplySource::TextFn).
    using ReplyTextFn = std::function<void(int stepIdx, const QString& textSoFar)>;

    AgentLoop(store::Database& db, ReplySource& source, VerifyFn verify, AgentSetup setup);

    // Stores a new run of setup.task with its settings (state running, owned by this process); drive() runs it.
    Result<AgentRun> create(const QString& actor);
    // Stores a new run of setup.task (as create()) whose history is the first `steps` steps of run `fromRunId`
    // (TrajectoryStore::forkRun): their totals, best step and next stage; drive() continues it.
    Result<AgentRun> fork(qint64 fromRunId, int steps, const QString& actor);
    // Continues `run` (claimed: state running) from its last stored step.
    Result<AgentRun> drive(AgentRun run, const QString& actor, const std::atomic<bool>* cancel,
                           const StepFn& onStep = {}, const ReplyTextFn& onReplyText = {});

    // The settings recorded with a run (source, verify options, versions, sampling), without any key.
    QVariantMap runSettings() const;

private:
    AgentRun newRun() const;  // the run create() and fork() store, before the store gives it an id
    Result<QString> systemPrompt() const;
    Result<TrajectoryStep> prompt(const LoopState& state, const std::optional<Verdict>& last) const;
    void takeReply(TrajectoryStep& step, const QString& reply, const LoopState& state) const;
    Result<AgentRun> finish(AgentRun run, const LoopState& state, RunState runState, const QString& why);

    store::Database& m_db;
    ReplySource& m_source;
    VerifyFn m_verify;
    AgentSetup m_setup;
};

// The verify options a run recorded (runSettings()["verify"]), over `fallback` for what it lacks.
VerifyOptions verifyOptionsFromSettings(const QVariantMap& settings, VerifyOptions fallback);
// The harness version this build drives (recorded with runs).
QString agentHarnessVersion();

}  // namespace km
