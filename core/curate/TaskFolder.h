#pragma once
// The task folder format (tasks/<id>/task.toml, description.md, reference.py, spec.md): read and write, losslessly.

#include "curate/ImportFiles.h"
#include "curate/ImportReport.h"
#include "util/Result.h"

#include <functional>

namespace km {

// Reads one task folder. Problems go to *issues with file and line (every type error of task.toml, each at its key);
// returns nullopt when the task is unusable. A presentation file that is there but cannot be read, or is over the
// size limit, makes the task unusable: it is never taken as absent.
std::optional<Task> readTaskFolder(const QString& dir, QList<ImportIssue>* issues, const ImportOptions& options = {});

// Writes <parentDir>/<id>/ atomically file by file; removes presentation files the task no longer has.
Status writeTaskFolder(const Task& task, const QString& parentDir);

// Reports validation problems of a decoded task as import issues located in the given file, at the line of the key.
// Returns false when any is an error.
bool reportValidation(const Task& task, const QString& file, const std::function<int(const QString&)>& lineOf,
                      QList<ImportIssue>* issues);

// Reads a whole file as UTF-8; invalid UTF-8 is an error, not silently replaced.
Result<QString> readUtf8File(const QString& path);

}  // namespace km
