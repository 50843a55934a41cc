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

// Everything: structure, the reference contract, configurations against the reference's constants.
QList<ValidationIssue> validateTask(const Task& task);
// What any stored task must satisfy (the store refuses others): id, title, level, vocabularies, presentations.
QList<ValidationIssue> validateStructure(const Task& task);
bool isValidTaskId(const QString& id);

}  // namespace km
