#pragma once
// The agent loop's budgets and the state a run has reached, rebuilt from its stored steps (so a resumed run goes on
// exactly where the stored steps end), and the pure decisions taken from it: next stage, stop or go on. Any thread.

#include "agent/ChatTypes.h"
#include "model/Trajectory.h"

#include <QMap>

namespace km {

struct AgentBudget {
    int turns = 0;       // 0: no limit
    qint64 tokens = 0;   // prompt + completion tokens; 0: no limit
    double minutes = 0;  // wall time of replies and verifications; 0: no limit
    QVariantMap toVariant() const;
    static AgentBudget fromVariant(const QVariantMap& m);
};

struct AgentBudgets {
    AgentBudget run{8, 0, 0};
    AgentBudget implement, repair, optimise;
    double targetSpeedup = 0;  // optimisation stops once the best passing speedup reaches it; 0: no target
    int plateau = 3;           // optimisation stops after this many steps without a new best
    QVariantMap toVariant() const;
    static AgentBudgets fromVariant(const QVariantMap& m);
};

struct LoopState {
    QList<ChatMessage> conversation;  // system, then each step's prompt and reply
    int nextIdx = 0;
    int turns = 0;
    qint64 tokensIn = 0;
    qint64 tokensOut = 0;
    qint64 elapsedMs = 0;
    QMap<Stage, AgentBudget> spent;  // per stage: turns, tokens, minutes used
    QString lastCode;
    qint64 lastVerdictId = 0;  // the last step's verdict; 0 when it had none
    QString lastError;         // the last step's error (no usable code); empty when it had code
    bool verified = false;     // some step has a verdict
    bool passed = false;
    std::optional<double> bestSpeedup;
    qint64 bestStepId = 0;
    int sinceImprovement = 0;  // optimise steps since the last new best
};

// The loop's state after the stored steps (in order). `system` is the system message when no step carries one.
LoopState stateAfter(const QList<TrajectoryStep>& steps, const QString& system = {});
// Adds one completed step to the state; returns true when it is the run's new best.
bool advance(LoopState& state, const TrajectoryStep& step);
// implement (no verdict yet), repair (nothing passed yet), optimise.
Stage nextStage(const LoopState& state);
// Why the run should stop before its next step; empty: go on.
QString stopReason(const LoopState& state, const AgentBudgets& budgets);
// {turns, tokens_in, tokens_out, elapsed_ms, passed, best_speedup, best_step_id}
QVariantMap totalsOf(const LoopState& state);

}  // namespace km
