#pragma once
// What the workbench's runs and replay views read (issue 19): every run as one summary row, a run's steps without
// their long texts, and one step in full with its verdict. Reads only; over the Database a TaskStore opened, on the
// thread that owns it (the StoreWorker's). Long texts (prompt, reply, messages, code, diff, evidence) are read by
// stepDetail() only, for the step on screen.

#include "model/Trajectory.h"
#include "model/Verdict.h"
#include "util/Result.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <optional>

namespace km {
namespace store {
class Database;
}

// One row of the runs view.
struct RunSummary {
    qint64 id = 0;
    QString taskId;
    QString taskTitle;
    QString kind;         // llm, manual
    QString model;        // empty for a manual run
    QString replySource;  // "model NAME", "manual folder", "manual command", ...: settings.reply_source, or kind/model
    RunState state = RunState::Running;
    Stage stage = Stage::Implement;
    int steps = 0;
    QString bestStatus;  // the best step's verdict status; else the latest step's; empty without a verdict
    std::optional<double> bestSpeedup;  // the best PASSED step's
    qint64 tokens = 0;                  // in + out over the steps
    qint64 wallMs = 0;                  // ended - started; for a running run, now - started
    QString label;                      // settings.provenance.label; "imported" without a label; empty: made here
    QString error;                      // why it failed, one line
    qint64 forkedFrom = 0;              // settings.forked_from: the run this one was forked from; 0: no fork
    int forkedSteps = 0;                // how many of that run's steps it took over
    QDateTime startedAt;
    QDateTime endedAt;
};

// One mark of the step timeline: a step without its long texts.
struct StepSummary {
    qint64 id = 0;
    qint64 runId = 0;
    int idx = 0;
    Stage stage = Stage::Implement;
    QString templateName;
    QString status;  // the verdict's; empty without one
    std::optional<double> speedup;
    QString summary;  // the verdict's one line
    QString error;    // why the step produced no verdict
    qint64 tokensIn = 0;
    qint64 tokensOut = 0;
    qint64 latencyMs = 0;
    qint64 verifyMs = 0;
    qint64 solutionId = 0;
    qint64 verdictId = 0;
    int codeLines = 0;
    QDateTime createdAt;
};

// One step as the replay view shows it: every text, its verdict (decoded; nullopt without one) and the code of
// the previous step (empty for the first).
struct StepDetail {
    TrajectoryStep step;
    std::optional<Verdict> verdict;
    QString previousCode;
};

// A run's summary with its steps (the open run of the replay, a side of a comparison).
struct RunWithSteps {
    RunSummary run;
    QList<StepSummary> steps;
};

// Every run, newest first, with its task's title and its steps' aggregates: one query.
Result<QList<RunSummary>> runSummaries(store::Database& db);
// One run's summary; NotFound for an unknown id.
Result<RunSummary> runSummary(store::Database& db, qint64 runId);
// The run's steps, in order; NotFound for an unknown run.
Result<QList<StepSummary>> stepSummaries(store::Database& db, qint64 runId);
// runSummary and stepSummaries together; NotFound for an unknown run.
Result<RunWithSteps> runWithSteps(store::Database& db, qint64 runId);
// One step in full; NotFound for an unknown step.
Result<StepDetail> stepDetail(store::Database& db, qint64 stepId);
// The code of any step (for a diff against a step the user picked); NotFound for an unknown step.
Result<QString> stepCode(store::Database& db, qint64 stepId);

// The SELECT runSummaries (oneRun false) and runSummary (oneRun true: two `?` for the run id) run, for the test
// that checks its plan reads no step row.
QString runSummarySql(bool oneRun);

}  // namespace km
