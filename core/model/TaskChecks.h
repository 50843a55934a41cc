#pragma once
// The structural rules every stored task satisfies (ids, title, level, vocabularies, presentations): below the
// store, which refuses a task that breaks them. The full task validation builds on these (curate/TaskValidator).
// Pure functions, any thread.

#include "model/Task.h"

#include <QList>

namespace km {

struct ValidationIssue {
    bool error = true;  // false: a warning, the task is still usable
    QString field;      // key path in task.toml terms, or a file name (reference.py)
    QString message;
};

// What any stored task must satisfy (the store refuses others): id, title, level, vocabularies, presentations.
QList<ValidationIssue> validateStructure(const Task& task);
bool isValidTaskId(const QString& id);

}  // namespace km
