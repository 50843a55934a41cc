#pragma once
// A store for the runs and replay tests: the bundled tasks, the shipped H200 demonstrations imported (6 runs, 14
// steps) and two runs recorded here through TrajectoryStore: an LLM run (a compile error repaired to 2.5x) and an
// interrupted manual run whose only step had no code. Needs KMOSAIC_TASKS_DIR and KMOSAIC_SOURCE_DIR.

#include "agent/TrajectoryBundle.h"
#include "curate/BundledTasks.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"

#include <QFile>

namespace km::test {

inline QString demonstrationsPath()
{
    return QStringLiteral(KMOSAIC_SOURCE_DIR "/resources/trajectories/h200-manual-demonstrations.json");
}

struct SeededRuns {
    int imported = 0;
    qint64 llmRunId = 0;          // task clamp-scale, model gpt-test: COMPILE_ERROR then PASSED 2.5x (best)
    qint64 llmFirstStepId = 0;    // the compile error
    qint64 llmSecondStepId = 0;   // the pass
    qint64 interruptedRunId = 0;  // task leaky-relu, manual command, one step without code, interrupted
};

inline TrajectoryStep seedStep(int idx, Stage stage, const QString& code, qint64 in, qint64 out)
{
    TrajectoryStep s;
    s.idx = idx;
    s.stage = stage;
    s.templateName = code.isEmpty() ? QStringLiteral("no_code") : toString(stage);
    s.prompt = QStringLiteral("prompt %1").arg(idx);
    s.reply = QStringLiteral("reply %1").arg(idx);
    s.code = code;
    s.error = code.isEmpty() ? QStringLiteral("the reply had no code block\nsecond line") : QString();
    s.tokensIn = in;
    s.tokensOut = out;
    s.latencyMs = 1000 + idx;
    s.verifyMs = code.isEmpty() ? 0 : 2000 + idx;
    s.messages = {QVariantMap{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), s.prompt}}};
    return s;
}

inline Verdict seedVerdict(VerdictStatus status, std::optional<double> speedup)
{
    Verdict v;
    v.status = status;
    v.summary = QStringLiteral("summary of %1").arg(toString(status));
    v.harnessVersion = QStringLiteral("1.0.0");
    v.executor = QStringLiteral("local");
    if (status == VerdictStatus::CompileError)
        v.diagnostics = {SolutionDiagnostic{QStringLiteral("error"), 3, QStringLiteral("cuda.cu"), 9,
                                            QStringLiteral("identifier \"x\" is undefined")}};
    v.speedup = speedup;
    v.runtimeMs = speedup ? std::optional<double>(1.0) : std::nullopt;
    v.refRuntimeMs = speedup ? std::optional<double>(*speedup) : std::nullopt;
    return v;
}

// Fills the store; an error message, empty on success.
inline QString seedRuns(TaskStore& store, SeededRuns& out)
{
    auto seeded = seedIfEmpty(store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester"));
    if (!seeded)
        return seeded.error().message;
    QFile f(demonstrationsPath());
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read ") + demonstrationsPath();
    auto bundle = readTrajectoryBundle(f.readAll());
    if (!bundle)
        return bundle.error().message;
    TrajectoryStore ts(store.database());
    for (const BundledRun& r : bundle.value().runs) {
        auto imported = ts.importRun(r,
                                     bundleProvenance(bundle.value().label, r.origin, bundle.value().exportedAt,
                                                      QDateTime::currentDateTimeUtc()),
                                     QStringLiteral("tester"));
        if (!imported)
            return imported.error().message;
        ++out.imported;
    }

    AgentRun llm;
    llm.taskId = QStringLiteral("clamp-scale");
    llm.kind = QStringLiteral("llm");
    llm.model = QStringLiteral("gpt-test");
    llm.settings = {{QStringLiteral("source"), QVariantMap{{QStringLiteral("kind"), QStringLiteral("llm")}}}};
    auto run = ts.createRun(llm, QStringLiteral("tester"));
    if (!run)
        return run.error().message;
    out.llmRunId = run.value().id;
    auto first =
        ts.recordStep(run.value(), seedStep(0, Stage::Implement, QStringLiteral("class ModelNew:\n  bad\n"), 100, 10),
                      seedVerdict(VerdictStatus::CompileError, std::nullopt), false, QStringLiteral("tester"));
    if (!first)
        return first.error().message;
    out.llmFirstStepId = first.value().id;
    AgentRun repair = run.value();
    repair.stage = Stage::Repair;
    auto second =
        ts.recordStep(repair, seedStep(1, Stage::Repair, QStringLiteral("class ModelNew:\n  good\n  x = 1\n"), 101, 20),
                      seedVerdict(VerdictStatus::Passed, 2.5), true, QStringLiteral("tester"));
    if (!second)
        return second.error().message;
    out.llmSecondStepId = second.value().id;
    if (Status st = ts.finishRun(out.llmRunId, RunState::Completed, {}, {}); !st)
        return st.error().message;

    AgentRun manual;
    manual.taskId = QStringLiteral("leaky-relu");
    manual.kind = QStringLiteral("manual");
    manual.model = QStringLiteral("manual");
    manual.settings = {{QStringLiteral("source"), QVariantMap{{QStringLiteral("kind"), QStringLiteral("manual")},
                                                              {QStringLiteral("command"), QStringLiteral("cat")}}}};
    auto interrupted = ts.createRun(manual, QStringLiteral("tester"));
    if (!interrupted)
        return interrupted.error().message;
    out.interruptedRunId = interrupted.value().id;
    if (auto st = ts.recordStep(interrupted.value(), seedStep(0, Stage::Implement, {}, 7, 3), std::nullopt, false,
                                QStringLiteral("tester"));
        !st)
        return st.error().message;
    if (Status st = ts.finishRun(out.interruptedRunId, RunState::Interrupted,
                                 QStringLiteral("the process running it ended without finishing it"), {});
        !st)
        return st.error().message;
    return {};
}

}  // namespace km::test
