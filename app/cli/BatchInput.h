#pragma once
// What `kmosaic verify --batch` reads: a JSON array of {task, file}, a JSONL file of {task, file} or {task, code}
// (one solution per line), or a folder of solutions (every *.py under it; the task is --task, or the name of the
// folder that holds the file). Pure: resolving task ids against the store is the caller's job.

#include "util/Result.h"

#include <QList>
#include <QString>

namespace km::cli {

struct BatchEntry {
    QString taskId;
    QString path;    // the solution file, absolute; for inline code, "<batch>:<line>"
    QString source;  // the solution's text
    QString where;   // "batch.jsonl:12", for messages
};

// `defaultTask`: the task of every entry that names none (folder layouts, JSONL lines without "task").
Result<QList<BatchEntry>> readBatch(const QString& path, const QString& defaultTask = {});

}  // namespace km::cli
