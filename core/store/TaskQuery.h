#pragma once
// What a task list asks the store for, and the light rows it gets back.

#include "model/Task.h"

#include <QDateTime>

namespace km {

struct TaskFilter {
    QList<ReviewStatus> statuses;       // any of; empty: all
    QList<int> levels;                  // any of
    QStringList categories;             // any of
    QList<Presentation> presentations;  // shown to the model: all of
    QString text;                       // full-text query (words, prefix-matched, all must occur)
    QStringList ids;                    // only these ids; empty: all
    int limit = 0;                      // 0: no limit
};

struct TaskSummary {
    QString id;
    QString title;
    int level = 1;
    QStringList categories;
    PresentationSet shown;
    PresentationSet present;
    ReviewStatus status = ReviewStatus::Draft;
    QString lastReviewer;
    QDateTime updatedAt;
};

// Turns user words into an FTS5 query where each word is a quoted prefix term; nothing the user types is syntax.
QString ftsQueryFor(const QString& text);

}  // namespace km
