#pragma once
// Import and export of task sets: detects the format, reads everything it can, stores the good tasks in one pass
// and reports the rest with file and line. Runs on the caller's thread; progress can cancel.

#include "curate/ImportFiles.h"
#include "curate/ImportReport.h"
#include "model/Task.h"
#include "store/TaskQuery.h"
#include "util/Result.h"

#include <functional>

namespace km {

class TaskStore;

enum class TaskFormat { Auto, Folder, KernelBench, Jsonl };
std::optional<TaskFormat> taskFormatFromString(const QString& s);
QString toString(TaskFormat f);

// Folder: a task folder or a folder of task folders. KernelBench: a checkout. Jsonl: a .jsonl file.
Result<TaskFormat> detectFormat(const QString& path);
// A file that is there but cannot be read, or is over options' size limits, is an error of its task, never absent.
ImportBatch readTasks(const QString& path, TaskFormat format, const ImportOptions& options = {});

// Returns false to cancel; tasks stored so far stay stored.
using Progress = std::function<bool(int done, int total)>;

Result<ImportReport> importTasks(TaskStore& store, const QString& path, TaskFormat format, const QString& actor,
                                 const Progress& progress = {}, const ImportOptions& options = {});
// The second half of importTasks, for a caller that read (and perhaps trimmed) the batch first.
Result<ImportReport> importBatch(TaskStore& store, const ImportBatch& batch, const QString& path, const QString& actor,
                                 const Progress& progress = {});
// The ids of the tasks in `incoming` that the import would change and whose stored content was last changed by
// something other than an import (an edit in the workbench): what a re-import would overwrite.
Result<QStringList> editedSinceImport(TaskStore& store, const QList<Task>& incoming);

// Folder: writes <out>/<id>/ for each task. Jsonl: writes the file <out>. Returns how many tasks were written.
Result<int> exportTasks(TaskStore& store, const TaskFilter& filter, TaskFormat format, const QString& out);

}  // namespace km
