#pragma once
// Tasks as JSON Lines: one task object per line, the task.toml keys plus description, reference and spec.

#include "curate/ImportFiles.h"
#include "curate/ImportReport.h"
#include "util/Result.h"

namespace km {

// Reads every line; a malformed line, or one over options.maxLineBytes, is an issue with its line number and the
// rest goes on.
ImportBatch readTasksJsonl(const QString& path, const ImportOptions& options = {});
QByteArray taskToJsonLine(const Task& task);  // no trailing newline
Status writeTasksJsonl(const QList<Task>& tasks, const QString& path);

}  // namespace km
