// Filters and sort order of the runs table (RunFilterProxyModel.h).
#include "models/RunFilterProxyModel.h"

#include "models/RunTableModel.h"

namespace km::ui {

namespace {
bool contains(const QString& hay, const QString& needle)
{
    return hay.contains(needle, Qt::CaseInsensitive);
}

bool matchesWords(const QStringList& words, const RunSummary& r)
{
    for (const QString& w : words)
        if (!contains(r.taskId, w) && !contains(r.taskTitle, w) && !contains(r.model, w) && !contains(r.label, w) &&
            !contains(r.error, w) && !contains(r.replySource, w))
            return false;
    return true;
}

bool matchesParts(const RunFilter& f, const RunSummary& r)
{
    if (!f.states.isEmpty() && !f.states.contains(r.state))
        return false;
    if (!f.task.isEmpty() && !contains(r.taskId, f.task) && !contains(r.taskTitle, f.task))
        return false;
    if (!f.replySources.isEmpty() && !f.replySources.contains(r.replySource))
        return false;
    if (!f.bestStatuses.isEmpty() && !f.bestStatuses.contains(r.bestStatus))
        return false;
    if ((f.speedupMin || f.speedupMax) && !r.bestSpeedup)
        return false;
    if (f.speedupMin && *r.bestSpeedup < *f.speedupMin)
        return false;
    if (f.speedupMax && *r.bestSpeedup > *f.speedupMax)
        return false;
    return f.label.isEmpty() || r.label == f.label;
}

QStringList wordsOf(const QString& search)
{
    return search.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}
}  // namespace

bool matches(const RunFilter& filter, const RunSummary& run)
{
    return matchesParts(filter, run) && matchesWords(wordsOf(filter.search), run);
}

RunFilterProxyModel::RunFilterProxyModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RunTableModel::SortRole);
}

void RunFilterProxyModel::setSourceTable(RunTableModel* model)
{
    m_table = model;
    setSourceModel(model);
}

void RunFilterProxyModel::setFilter(RunFilter filter)
{
    if (filter == m_filter)
        return;
    m_filter = std::move(filter);
    m_words = wordsOf(m_filter.search);
    invalidate();  // one layout change: the views recount once instead of once per removed or inserted range
}

RunFilterProxyModel::Counts RunFilterProxyModel::counts() const
{
    return {rowCount(), m_table ? m_table->rowCount() : 0};
}

bool RunFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (sourceParent.isValid() || !m_table)
        return false;
    const RunSummary* r = m_table->runAt(sourceRow);
    return r && matchesParts(m_filter, *r) && matchesWords(m_words, *r);
}

bool RunFilterProxyModel::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const RunSummary* a = m_table ? m_table->runAt(left.row()) : nullptr;
    const RunSummary* b = m_table ? m_table->runAt(right.row()) : nullptr;
    if (!a || !b)
        return QSortFilterProxyModel::lessThan(left, right);
    switch (left.column()) {
    case RunTableModel::BestSpeedup:
        if (a->bestSpeedup.has_value() != b->bestSpeedup.has_value())
            // Missing last in either order: the sort reverses lessThan when descending.
            return (sortOrder() == Qt::AscendingOrder) == a->bestSpeedup.has_value();
        if (!a->bestSpeedup)
            return a->id < b->id;
        return *a->bestSpeedup < *b->bestSpeedup;
    case RunTableModel::Steps: return a->steps < b->steps;
    case RunTableModel::Tokens: return a->tokens < b->tokens;
    case RunTableModel::WallTime: return a->wallMs < b->wallMs;
    case RunTableModel::Started: return a->startedAt < b->startedAt;
    default: return QSortFilterProxyModel::lessThan(left, right);
    }
}

}  // namespace km::ui
