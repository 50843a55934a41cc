#pragma once
// What an import found: the tasks it could read, and every problem with the file and line it came from.

#include "model/Task.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace km {

struct ImportIssue {
    enum class Severity { Error, Warning };
    Severity severity = Severity::Error;
    QString file;
    int line = 0;  // 1-based; 0 when the problem is the file as a whole
    QString reason;
    QString format() const;  // "file:line: error: reason"
};

struct ImportBatch {
    QList<Task> tasks;
    QList<ImportIssue> issues;
    int skipped = 0;  // tasks (files, lines) that could not be read
    int errorCount() const;
};

struct ImportReport {
    int created = 0;
    int updated = 0;
    int unchanged = 0;
    int skipped = 0;  // unreadable or invalid: see issues
    QList<ImportIssue> issues;
    QStringList createdIds;  // every task the import added, and every task it changed
    QStringList updatedIds;
};

}  // namespace km
