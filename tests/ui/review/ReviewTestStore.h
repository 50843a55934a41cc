#pragma once
// A store seeded from the bundled tasks in a temporary folder, and helpers over its audit log; for the review tests.

#include "../StoreWorkerWait.h"
#include "curate/BundledTasks.h"
#include "store/TaskStore.h"

#include <QTemporaryDir>
#include <QtTest>
#include <memory>

namespace km::test {

// Fails the calling test (QVERIFY) and returns null when the store cannot be opened or seeded.
inline std::unique_ptr<TaskStore> openSeededStore(const QTemporaryDir& dir)
{
    auto s = TaskStore::open(dir.filePath(QStringLiteral("review.sqlite")));
    if (!s.ok()) {
        qWarning("cannot open the store: %s", qPrintable(s.error().message));
        return nullptr;
    }
    std::unique_ptr<TaskStore> store = std::move(s).value();
    auto seeded = seedIfEmpty(*store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester"));
    if (!seeded.ok() || !seeded.value().has_value() || seeded.value()->created < 5) {
        qWarning("cannot seed the store from %s", KMOSAIC_TASKS_DIR);
        return nullptr;
    }
    return store;
}

// The task's audit entries with action "status" (review decisions), oldest first.
inline QList<AuditEntry> statusEntries(TaskStore& store, const QString& taskId)
{
    QList<AuditEntry> out;
    for (const AuditEntry& e : store.audit(QStringLiteral("task"), taskId).value())
        if (e.action == QLatin1String("status"))
            out.append(e);
    return out;
}

inline ReviewStatus statusIn(TaskStore& store, const QString& taskId)
{
    return store.task(taskId).value().value().status;
}

}  // namespace km::test
