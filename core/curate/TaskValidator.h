#pragma once
// Checks a decoded task against the rules of the task format (ids, presentations, contract of the reference).

#include "model/Task.h"

#include <QList>

namespace km {

struct ValidationIssue {
    bool error = true;  // false: a warning, the task is still usable
    QString field;      // key path in task.toml terms, or a file name (reference.py)
    QString message;
};

QList<ValidationIssue> validateTask(const Task& task);
bool isValidTaskId(const QString& id);

}  // namespace km
