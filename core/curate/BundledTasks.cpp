#include "curate/BundledTasks.h"

#include "curate/Importer.h"
#include "store/TaskStore.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace km {

QString bundledTasksDir()
{
    const QString env = qEnvironmentVariable("KMOSAIC_TASKS_DIR");
    if (!env.isEmpty())
        return env;
    const QString installed =
        QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/kmosaic/tasks"));
    if (QFileInfo(installed).isDir())
        return QDir::cleanPath(installed);
    return QStringLiteral(KMOSAIC_SOURCE_TASKS_DIR);
}

Result<std::optional<ImportReport>> seedIfEmpty(TaskStore& store, const QString& tasksDir, const QString& actor)
{
    auto n = store.count();
    if (!n)
        return n.error();
    if (n.value() > 0)
        return std::optional<ImportReport>();
    if (!QFileInfo(tasksDir).isDir())
        return makeError(ErrorCode::NotFound, QStringLiteral("bundled tasks not found at %1").arg(tasksDir));
    auto report = importTasks(store, tasksDir, TaskFormat::Folder, actor);
    if (!report)
        return report.error();
    return std::optional<ImportReport>(report.value());
}

}  // namespace km
