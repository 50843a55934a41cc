#pragma once
// The task set shipped with KernelMosaic, and seeding an empty store from it.

#include "curate/ImportReport.h"
#include "util/Result.h"

namespace km {

class TaskStore;

// $KMOSAIC_TASKS_DIR, else share/kmosaic/tasks next to the installed binary, else the source tree's tasks/.
QString bundledTasksDir();

// Imports the bundled tasks when the store holds no task at all; returns nullopt when it was not empty.
Result<std::optional<ImportReport>> seedIfEmpty(TaskStore& store, const QString& tasksDir, const QString& actor);

}  // namespace km
