#pragma once
// What an empty store is given on the workbench's first start: the bundled tasks, then the shipped demonstration
// runs (their steps, solutions and verdicts), so every view has something real to show. On the thread that owns the
// store.

#include "curate/ImportReport.h"
#include "services/TrajectoryTransfer.h"
#include "util/Result.h"

#include <optional>

namespace km {

class TaskStore;

struct FirstStartReport {
    std::optional<ImportReport> tasks;       // nullopt: the store had tasks, nothing was imported
    std::optional<BundleImportReport> runs;  // nullopt: not seeded (the store had tasks or runs)
};

// Imports the bundled tasks into a store with no task, and then the shipped demonstrations. A store that has tasks
// is left as it is. A demonstration run that fails to import is in the report; a missing bundle is an error.
Result<FirstStartReport> seedFirstStart(TaskStore& store, const QString& tasksDir, const QString& actor);

}  // namespace km
