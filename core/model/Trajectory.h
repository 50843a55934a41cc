#pragma once
// Agent runs and their steps as values: what the agent loop records and `kmosaic agent show` reads back
// (docs/store.md, schema v6). Pure data, any thread; the one mapping of run states and stages to their text.

#include "model/Verdict.h"

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <QVariantMap>
#include <optional>

namespace km {

// Where a run stands. The store's `runs.state` column and the bundle format keep these as text (toString).
enum class RunState { Running, Completed, Interrupted, Cancelled, Failed };
// Stages of a run, in the order the loop goes through them; text in the store, bundles and budgets.
enum class Stage { Implement, Repair, Optimise };

// "running", "completed", "interrupted", "cancelled", "failed"
QString toString(RunState s);
// "implement", "repair", "optimise"
QString toString(Stage s);
// nullopt for a text that names none (a damaged store row or bundle: the reader says so).
std::optional<RunState> runStateFromString(const QString& text);
std::optional<Stage> stageFromString(const QString& text);
// Every name, in the enums' order: for messages and format checks that list them.
QStringList runStateNames();
QStringList stageNames();

// One agent run on one task: how it was configured and where it stands.
struct AgentRun {
    qint64 id = 0;
    QString taskId;
    QString kind = QStringLiteral("llm");  // llm, manual
    QString model;
    QString promptVersion;  // "implement@1 no_code@1 ..."
    QVariantMap settings;   // sampling, provider (never a key), reply source, verify options, versions
    QVariantMap budgets;    // {run: {turns, tokens, minutes}, implement/repair/optimise: {...}, target_speedup...}
    QVariantMap totals;     // {turns, tokens_in, tokens_out, elapsed_ms, best_speedup, passed, stop_reason}
    RunState state = RunState::Running;
    Stage stage = Stage::Implement;  // the stage of the next step
    QString owner;                   // pid@host of the process running it
    QString error;                   // why it failed, one line
    bool cancelRequested = false;
    qint64 bestStepId = 0;  // 0: no step passed yet
    QDateTime startedAt;
    QDateTime endedAt;
};

// One completed turn: the prompt, the model's reply, the code taken from it and its verdict.
struct TrajectoryStep {
    qint64 id = 0;
    qint64 runId = 0;
    int idx = 0;  // 0-based within the run
    Stage stage = Stage::Implement;
    QString templateName;   // the prompt template used (implement, repair, optimise, no_code)
    QVariantList messages;  // [{role, content}] this step added to the conversation (system first on step 0)
    QString prompt;         // the user message sent
    QString reply;          // the model's text as received
    QString code;           // extracted solution; empty when the reply had none
    QString diff;           // unified diff of code against the previous step's code
    QString error;          // why the step produced no verdict (no code, a refused reply), one line
    QVariantList guidance;  // ids of the guidance notes given
    QVariantMap usage;      // {prompt_tokens, completion_tokens, attempts, finish_reason, model}
    qint64 tokensIn = 0;
    qint64 tokensOut = 0;
    qint64 latencyMs = 0;  // the reply's, retries included
    qint64 verifyMs = 0;
    qint64 solutionId = 0;  // 0: no code
    qint64 verdictId = 0;   // 0: no verdict
    QString status;         // the verdict's status; empty without one
    std::optional<double> speedup;
    QString summary;  // the verdict's one-line summary
    QDateTime createdAt;
};

// Where a forked run came from (settings.forked_from, written by TrajectoryStore::forkRun): the run, how many of
// its steps the fork took over, and when that run started (what identifies it in another store).
struct ForkOrigin {
    qint64 runId = 0;
    int steps = 0;
    QString startedAt;
};
// nullopt for a run that is no fork.
std::optional<ForkOrigin> forkOriginOf(const AgentRun& run);

// A run as it travels between stores (docs/agent.md, "Trajectory bundles"): no store ids; the best step by index
// and each step with its verdict.
struct BundledStep {
    TrajectoryStep step;  // id, runId, solutionId, verdictId unused
    std::optional<Verdict> verdict;
};

struct BundledRun {
    AgentRun run;  // id, owner, cancelRequested, bestStepId unused
    std::optional<int> bestStepIdx;
    QString origin;     // stable content id (trajectoryOrigin); empty: computed when written
    QString taskTitle;  // for reference only
    QList<BundledStep> steps;
};

}  // namespace km
