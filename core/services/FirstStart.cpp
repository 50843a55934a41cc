#include "services/FirstStart.h"

#include "curate/BundledTasks.h"
#include "store/TaskStore.h"

namespace km {

Result<FirstStartReport> seedFirstStart(TaskStore& store, const QString& tasksDir, const QString& actor)
{
    auto tasks = seedIfEmpty(store, tasksDir, actor);
    if (!tasks)
        return tasks.error();
    FirstStartReport report;
    report.tasks = std::move(tasks).value();
    if (!report.tasks)
        return report;
    auto runs = seedDemonstrationsIfNoRuns(store.database(), actor);
    if (!runs)
        return runs.error();
    report.runs = std::move(runs).value();
    return report;
}

}  // namespace km
