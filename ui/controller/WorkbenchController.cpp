#include "controller/WorkbenchController.h"

#include "models/TaskFilterProxyModel.h"
#include "models/TaskTableModel.h"
#include "review/ReviewSession.h"

#include <QScopedValueRollback>

namespace km::ui {

WorkbenchController::WorkbenchController(TaskStore& store, QString reviewer, QObject* parent)
    : QObject(parent)
    , m_repo(store)
    , m_reviewer(std::move(reviewer))
    , m_model(new TaskTableModel(this))
    , m_proxy(new TaskFilterProxyModel(this))
    , m_review(new ReviewSession(store, m_reviewer, this))
{
    m_proxy->setSourceTable(m_model);
    // The review queue is the list as filtered and sorted; the list follows the review and the review the list.
    connect(m_review, &ReviewSession::currentTaskChanged, this, &WorkbenchController::followReview);
    connect(m_review, &ReviewSession::decisionRecorded, this, [this](const ReviewRecord& r) { refreshTask(r.taskId); });
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &WorkbenchController::scheduleQueueUpdate);  // sort
}

WorkbenchController::~WorkbenchController() = default;

void WorkbenchController::setEditGuard(std::function<bool()> dirty, std::function<bool()> settle)
{
    m_dirty = std::move(dirty);
    m_settle = std::move(settle);
}

void WorkbenchController::setReviewer(const QString& name)
{
    if (name.trimmed().isEmpty() || name == m_reviewer)
        return;
    m_reviewer = name.trimmed();
    m_review->setReviewer(m_reviewer);
    Q_EMIT reviewerChanged(m_reviewer);
}

void WorkbenchController::reload()
{
    auto rows = m_repo.summaries({});
    if (!rows)
        return fail(tr("Cannot list tasks"), rows.error().message);
    m_model->setSnapshot(rows.value());
    m_review->updateInfo(m_model->rows());
    const QString before = m_current;
    setSearchText(m_search);
    if (m_current == before && !(m_dirty && m_dirty()))
        loadTask(m_current);  // the shown task may have changed in the store
}

void WorkbenchController::setSearchText(const QString& text)
{
    // The store answers a search with ids (a few ms at 10,000 tasks); the rows are already in the model.
    m_search = text;
    std::optional<QSet<QString>> visible;
    if (!ftsQueryFor(text).isEmpty()) {
        TaskFilter filter;
        filter.text = text;
        auto ids = m_repo.matchingIds(filter);
        if (!ids)
            return fail(tr("Search failed"), ids.error().message);
        visible = QSet<QString>(ids.value().cbegin(), ids.value().cend());
    }
    m_proxy->setVisibleIds(std::move(visible));
    applyFilter();
}

void WorkbenchController::setFacets(const FacetFilter& facets)
{
    m_facets = facets;
    applyFilter();
}

void WorkbenchController::applyFilter()
{
    m_proxy->setFacets(m_facets);
    m_counts = countFacets(
        m_model->rows(), [this](const TaskSummary& s) { return m_proxy->matchesSearch(s.id); }, m_facets);
    Q_EMIT listChanged(m_proxy->rowCount(), m_model->rowCount());
    Q_EMIT message(tr("%1 of %2 tasks").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
    scheduleQueueUpdate();
    keepCurrentVisible();
}

void WorkbenchController::keepCurrentVisible()
{
    // Keep the task the user was on; when the filter dropped it, move to the first row, or to none.
    const int sourceRow = m_model->rowOf(m_current);
    if (sourceRow >= 0 && m_proxy->mapFromSource(m_model->index(sourceRow, 0)).isValid()) {
        Q_EMIT currentTaskChanged(m_current);  // the filter moved its row
        return;
    }
    selectTask(m_proxy->rowCount() > 0 ? m_proxy->index(0, 0).data(TaskTableModel::TaskIdRole).toString() : QString());
}

bool WorkbenchController::selectTask(const QString& id)
{
    if (id == m_current && (id.isEmpty() || m_task))
        return true;
    if (!m_saving && m_dirty && m_dirty() && !(m_settle && m_settle())) {
        Q_EMIT currentTaskChanged(m_current);  // stay on the task with the edits; views put their selection back
        return false;
    }
    loadTask(id);
    return true;
}

void WorkbenchController::loadTask(const QString& id)
{
    m_current = id;
    m_task.reset();
    m_history.clear();
    if (!id.isEmpty()) {
        auto task = m_repo.task(id);
        auto history = m_repo.history(id);
        if (!task || !history)
            fail(tr("Cannot load task %1").arg(id), !task ? task.error().message : history.error().message);
        else if (task.value()) {
            m_task = task.value();
            m_history = history.value();
        }
        m_review->setCurrentTask(id);  // the review follows the task on screen (a no-op when it is already there)
    }
    Q_EMIT taskLoaded();
    Q_EMIT currentTaskChanged(m_current);
}

void WorkbenchController::followReview(const QString& id)
{
    // The review moved on (a decision, skip, undo, revisit): the list and the task view follow, unless the user
    // stays with unsaved edits; then the review goes back to the task on screen.
    if (id.isEmpty() || id == m_current)
        return;
    if (!selectTask(id) && !m_current.isEmpty())
        m_review->setCurrentTask(m_current);
}

Result<UpsertOutcome> WorkbenchController::saveEdit(const Task& edited)
{
    if (m_current.isEmpty() || !m_task || edited.id != m_current)
        return makeError(ErrorCode::InvalidInput, tr("No task is current: there is nothing to save to"));
    auto outcome = m_repo.saveTask(edited, m_reviewer, tr("edited in the workbench"));
    if (!outcome)
        return outcome;
    const QScopedValueRollback saving(m_saving, true);  // the edits are stored: moving off the task needs no question
    refreshTask(edited.id);
    if (m_current == edited.id)  // the edit may have taken it out of the filter
        loadTask(edited.id);     // the stored version
    return outcome;
}

void WorkbenchController::setShown(const QString& taskId, PresentationSet shown)
{
    auto task = m_repo.task(taskId);
    if (!task || !task.value())
        return fail(tr("Cannot change what %1 shows").arg(taskId), task ? tr("no such task") : task.error().message);
    Task t = *task.value();
    t.shown = shown;
    auto outcome = m_repo.saveTask(t, m_reviewer, tr("presentations shown to the model"));
    if (!outcome)
        return fail(tr("Cannot change what %1 shows").arg(taskId), outcome.error().message);
    refreshTask(taskId);
    Q_EMIT message(tr("%1 now shows: %2").arg(taskId, shown.names().join(QStringLiteral(", "))));
}

void WorkbenchController::refreshTask(const QString& id)
{
    // A change to one task: re-read its row (about 1 ms) rather than the whole list (80 ms at 10,000 tasks).
    TaskFilter one;
    one.ids = {id};
    auto rows = m_repo.summaries(one);
    if (!rows || rows->size() != 1 || !m_model->updateRow(rows->first()))
        return reload();
    m_review->updateInfo(rows.value());
    m_proxy->invalidate();  // the status may move it in or out of the filter, or in the sort
    applyFilter();
    if (id == m_current && !(m_dirty && m_dirty()))
        loadTask(id);
}

void WorkbenchController::scheduleQueueUpdate()
{
    // Posted behind the list's repaint: the filtered list shows first, the queue (about 15 ms at 10,000 tasks)
    // follows in the same event-loop turn, and a burst of changes rebuilds it once.
    if (m_queueUpdatePending)
        return;
    m_queueUpdatePending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_queueUpdatePending = false;
            m_review->setOrder(visibleTaskIds());
        },
        Qt::QueuedConnection);
}

QStringList WorkbenchController::visibleTaskIds() const
{
    QStringList ids;
    ids.reserve(m_proxy->rowCount());
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        ids.append(m_proxy->index(r, 0).data(TaskTableModel::TaskIdRole).toString());
    return ids;
}

void WorkbenchController::fail(const QString& what, const QString& message)
{
    Q_EMIT this->message(QStringLiteral("%1: %2").arg(what, message));
}

}  // namespace km::ui
