#pragma once
// The workbench's controller: owns the task list models, the review session and the current task; answers the
// views' requests (search, facets, select, save) through the StoreWorker, and follows its storeChanged(). No widgets.
// GUI thread; runs no SQL: every read and write is a request whose answer comes later.

#include "model/Review.h"
#include "model/Task.h"
#include "models/FacetFilter.h"
#include "services/TaskActivity.h"
#include "store/TaskQuery.h"
#include "store/TaskStore.h"
#include "util/Result.h"

#include <QObject>
#include <functional>
#include <optional>

namespace km {
class ServiceHost;
class StoreWorker;
}  // namespace km

namespace km::ui {

class ReviewSession;
class TaskFilterProxyModel;
class TaskTableModel;

class WorkbenchController : public QObject {
    Q_OBJECT
public:
    // reviewer: the name on every decision and edit (see ReviewerIdentity).
    // services: verification, solution review and agent runs on their own thread (none in tests of the task views).
    WorkbenchController(StoreWorker& store, QString reviewer, ServiceHost* services = nullptr,
                        QObject* parent = nullptr);
    ~WorkbenchController() override;

    TaskTableModel* taskModel() const { return m_model; }
    TaskFilterProxyModel* visibleTasks() const { return m_proxy; }  // what the task table shows
    ReviewSession& review() const { return *m_review; }
    QString storePath() const;  // the store file, for jobs that open their own connection
    const QString& reviewer() const { return m_reviewer; }
    ServiceHost* services() const { return m_services; }
    StoreWorker& store() const { return m_store; }  // for the other modes' controllers

    const QString& currentTaskId() const { return m_current; }
    // As stored; empty when none is current, and while the current task is being read (taskLoaded() follows).
    const std::optional<Task>& currentTask() const { return m_task; }
    const TaskActivity& currentActivity() const { return m_activity; }  // its solutions and runs
    const QList<AuditEntry>& currentHistory() const { return m_history; }
    QStringList visibleTaskIds() const;  // the filtered rows, in display order
    const FacetCounts& facetCounts() const { return m_counts; }
    const QString& searchText() const { return m_search; }

    // Asked before the current task changes: dirty() says whether edits are pending, settle() asks the user to save
    // or drop them (false: stay on the task).
    void setEditGuard(std::function<bool()> dirty, std::function<bool()> settle);

public Q_SLOTS:
    // Rereads every summary, and the current task unless it has pending edits; also on storeChanged().
    void reload();
    void setSearchText(const QString& text);
    void setFacets(const km::ui::FacetFilter& facets);
    bool selectTask(const QString& id);  // false when the user stayed on the task with the edits
    // Writes the edited current task; an error when no task is current or it is another task. The store's answer
    // comes with saved(); then the stored version is read back (taskLoaded()).
    Status saveEdit(const Task& edited);
    void setShown(const QString& taskId, km::PresentationSet shown);
    void setReviewer(const QString& name);

Q_SIGNALS:
    // The current task, again after a refused change so a view can put its selection back.
    void currentTaskChanged(const QString& id);
    void taskLoaded();                         // currentTask() and currentHistory() were (re)read or cleared
    void listChanged(int visible, int total);  // the filter or the rows changed; facetCounts() too
    void message(const QString& text);         // for the status bar
    void reviewerChanged(const QString& name);
    void saved(const QString& id, bool ok, const QString& message);  // a saveEdit() answered: "Saved", or the error

private:
    void applyFilter();
    void keepCurrentVisible();
    void loadTask(const QString& id);
    void applySnapshot(const QList<TaskSummary>& rows);
    void applySearch(const QString& text, const std::optional<QSet<QString>>& visible);
    void refreshTask(const QString& id);  // one row from the store, after a decision or an edit
    void followReview(const QString& id);
    void scheduleQueueUpdate();
    void fail(const QString& what, const QString& message);

    StoreWorker& m_store;
    QString m_reviewer;
    ServiceHost* m_services;
    TaskTableModel* m_model;
    TaskFilterProxyModel* m_proxy;
    ReviewSession* m_review;
    std::function<bool()> m_dirty;
    std::function<bool()> m_settle;
    QString m_search;
    FacetFilter m_facets;
    FacetCounts m_counts;
    QString m_current;
    std::optional<Task> m_task;
    TaskActivity m_activity;
    QList<AuditEntry> m_history;
    bool m_queueUpdatePending = false;
    bool m_saving = false;
    bool m_loading = false;                                  // the current task's read is under way
    std::pair<int, int> m_countsSaid{-1, -1};                // visible, total: the last "%1 of %2 tasks" message
    std::optional<std::pair<QString, QString>> m_savedNote;  // task id, "Saved": for saved() after the reload
};

}  // namespace km::ui
