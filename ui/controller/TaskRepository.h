#pragma once
// What the workbench controller asks of the store, as a small interface: today StoreRepository calls a TaskStore on
// the GUI thread; a store worker can implement the same calls later. Values in, values out.

#include "model/Review.h"
#include "model/Task.h"
#include "store/TaskQuery.h"
#include "store/TaskStore.h"
#include "util/Result.h"

namespace km::ui {

class TaskRepository {
public:
    virtual ~TaskRepository() = default;
    virtual QString location() const = 0;  // the store file, for jobs that open their own connection
    virtual Result<QList<TaskSummary>> summaries(const TaskFilter& filter) = 0;
    virtual Result<QStringList> matchingIds(const TaskFilter& filter) = 0;
    virtual Result<std::optional<Task>> task(const QString& id) = 0;
    virtual Result<QList<AuditEntry>> history(const QString& id) = 0;
    virtual Result<UpsertOutcome> saveTask(const Task& task, const QString& actor, const QString& reason) = 0;
};

// The interface over a TaskStore on the caller's thread.
class StoreRepository final : public TaskRepository {
public:
    explicit StoreRepository(TaskStore& store) : m_store(store) {}
    QString location() const override { return m_store.path(); }
    Result<QList<TaskSummary>> summaries(const TaskFilter& filter) override { return m_store.summaries(filter); }
    Result<QStringList> matchingIds(const TaskFilter& filter) override { return m_store.matchingIds(filter); }
    Result<std::optional<Task>> task(const QString& id) override { return m_store.task(id); }
    Result<QList<AuditEntry>> history(const QString& id) override { return m_store.audit(QStringLiteral("task"), id); }
    Result<UpsertOutcome> saveTask(const Task& task, const QString& actor, const QString& reason) override
    {
        return m_store.upsertTask(task, actor, reason);
    }

private:
    TaskStore& m_store;
};

}  // namespace km::ui
