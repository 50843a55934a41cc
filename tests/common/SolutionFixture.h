#pragma once
// A store for the solution review tests: the bundled tasks, the shipped H200 demonstrations imported (their
// solutions carry real verdicts: PASSED on cuda by the current harness, a COMPILE_ERROR, failures), and verdicts
// the test records itself with VerdictStore (on the CPU, by an old harness, with an error finding).
#include "agent/TrajectoryBundle.h"
#include "curate/BundledTasks.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"
#include "verify/HarnessLaunch.h"

#include <QFile>
#include <QTemporaryDir>
#include <memory>

namespace km::test {

inline QString demonstrationsPath()
{
    return QStringLiteral(KMOSAIC_TASKS_DIR "/../resources/trajectories/h200-manual-demonstrations.json");
}

// The bundled tasks and the shipped demonstrations in a new store file; null on any failure.
inline std::unique_ptr<TaskStore> solutionStore(const QTemporaryDir& dir, const QString& name = "solutions.sqlite")
{
    auto opened = TaskStore::open(dir.filePath(name));
    if (!opened)
        return nullptr;
    std::unique_ptr<TaskStore> store = std::move(opened).value();
    auto seeded = seedIfEmpty(*store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester"));
    if (!seeded || !seeded->has_value())
        return nullptr;
    QFile f(demonstrationsPath());
    if (!f.open(QIODevice::ReadOnly))
        return nullptr;
    auto bundle = readTrajectoryBundle(f.readAll());
    if (!bundle)
        return nullptr;
    TrajectoryStore trajectories(store->database());
    for (const BundledRun& run : bundle->runs)
        if (!trajectories.importRun(run, bundleProvenance(bundle->label, run.origin, bundle->exportedAt, {}),
                                    QStringLiteral("tester")))
            return nullptr;
    return store;
}

// A verdict as the harness on a GPU gives it: PASSED on cuda by the current harness, no finding.
inline Verdict gpuPassedVerdict(double speedup = 2.0)
{
    Verdict v;
    v.status = VerdictStatus::Passed;
    v.harnessVersion = harnessVersion();
    v.executor = QStringLiteral("local");
    v.summary = QStringLiteral("%1x (cuda)").arg(speedup);
    v.environment = {{QStringLiteral("gpu"), QVariantMap{{QStringLiteral("name"), QStringLiteral("NVIDIA H200")}}}};
    v.evidence = {{QStringLiteral("device"), QStringLiteral("cuda")}};
    v.speedup = speedup;
    return v;
}

inline Verdict cpuPassedVerdict()
{
    Verdict v = gpuPassedVerdict(1.0);
    v.environment.clear();
    v.evidence = {{QStringLiteral("device"), QStringLiteral("cpu")}};
    v.summary = QStringLiteral("passed on the cpu");
    return v;
}

inline Verdict oldHarnessVerdict()
{
    Verdict v = gpuPassedVerdict();
    v.harnessVersion = QStringLiteral("0.9.0");
    return v;
}

inline Verdict errorFindingVerdict()
{
    Verdict v = gpuPassedVerdict();
    v.findings = {{QStringLiteral("timing.implausible"), Finding::Severity::Error, 12,
                   QStringLiteral("faster than the bytes allow")}};
    return v;
}

// Stores `code` as a solution of leaky-relu with verdict `v`; its id, or 0.
inline qint64 recordSolution(TaskStore& store, const QString& code, const Verdict& v,
                             const QString& origin = QStringLiteral("manual"))
{
    auto r = VerdictStore(store.database())
                 .recordVerified(QStringLiteral("leaky-relu"), code, origin, v, QStringLiteral("tester"));
    return r ? r->solutionId : 0;
}

}  // namespace km::test
