#pragma once
// Trajectory bundles in and out of a store (docs/agent.md, "Trajectory bundles"): what `kmosaic agent import` and
// `agent export` do, and the workbench's File menu and first start. On the thread that owns the Database given.

#include "agent/TrajectoryBundle.h"
#include "store/TrajectoryStore.h"
#include "util/Result.h"

#include <functional>

namespace km {

namespace store {
class Database;
}

// What an import did with one run of the bundle.
struct BundleRunOutcome {
    enum class Kind { Imported, Skipped, Failed };
    int index = 0;  // 0-based in the bundle
    QString taskId;
    int steps = 0;
    QString origin;
    Kind kind = Kind::Failed;
    qint64 runId = 0;  // stored as (imported), or already stored as (skipped); 0 when it failed
    QString error;     // why it failed
};

QString toString(BundleRunOutcome::Kind k);  // "imported", "skipped", "failed"

struct BundleImportReport {
    QString source;  // the file read
    QString label;   // the bundle's provenance label
    QList<BundleRunOutcome> runs;
    bool cancelled = false;  // stopped by the progress callback: the runs listed so far were handled
    int count(BundleRunOutcome::Kind k) const;
    QString summary() const;  // "FILE: 6 imported, 0 skipped, 0 failed"
};

// Called after each run with (done, total); return false to stop before the next run.
using BundleProgress = std::function<bool(int done, int total)>;

// Reads and checks a bundle file: "cannot read PATH: why", or "PATH: what is wrong where".
Result<TrajectoryBundle> readTrajectoryBundleFile(const QString& path);
// Stores each run in its own transaction (one run failing keeps the others); provenance from the bundle's label
// and export time, imported now. Runs already stored are skipped.
BundleImportReport importTrajectoryBundle(store::Database& db, const TrajectoryBundle& bundle, const QString& source,
                                          const QString& actor, const BundleProgress& progress = {});

struct BundleExportReport {
    QString path;
    int runs = 0;
    int steps = 0;
    QList<qint64> stillRunning;  // exported as they are now; they import as interrupted
    QString summary() const;     // "exported 3 run(s), 7 step(s) to PATH"
};

// The selected runs to `path`, written atomically (a failed write leaves no partial file). NotFound for a listed
// run that is not stored, or when the selection holds no run.
Result<BundleExportReport> exportTrajectoryBundle(store::Database& db, const RunSelection& which, const QString& path,
                                                  const QString& label, const QString& exportedBy);

// The team-authored demonstrations shipped with the program (resources/trajectories).
QString shippedDemonstrationsPath();
// On a store that has tasks and no run at all: imports the shipped demonstrations (runs whose task is not stored
// fail and are reported). nullopt when the store already had runs.
Result<std::optional<BundleImportReport>> seedDemonstrationsIfNoRuns(store::Database& db, const QString& actor);

}  // namespace km
