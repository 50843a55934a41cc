#pragma once
// Checks a decoded task against the rules of the task format: the structural rules (model/TaskChecks), the
// contract of the reference and the configurations against the reference's constants.

#include "model/TaskChecks.h"

#include <QList>

namespace km {

// Everything: structure, the reference contract, configurations against the reference's constants.
QList<ValidationIssue> validateTask(const Task& task);

}  // namespace km
