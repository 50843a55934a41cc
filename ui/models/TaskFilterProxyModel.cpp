#include "models/TaskFilterProxyModel.h"

#include "models/TaskTableModel.h"

namespace km::ui {

TaskFilterProxyModel::TaskFilterProxyModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(TaskTableModel::SortRole);
}

void TaskFilterProxyModel::setSourceTable(TaskTableModel* model)
{
    m_table = model;
    setSourceModel(model);
}

void TaskFilterProxyModel::setVisibleIds(std::optional<QSet<QString>> ids)
{
    m_ids = std::move(ids);
    invalidateFilter();
}

void TaskFilterProxyModel::setFacets(FacetFilter facets)
{
    if (facets == m_facets)
        return;
    m_facets = std::move(facets);
    invalidateFilter();
}

bool TaskFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (sourceParent.isValid() || !m_table)
        return false;
    const TaskSummary* s = m_table->summaryAt(sourceRow);
    return s && matchesSearch(s->id) && m_facets.accepts(*s);
}

}  // namespace km::ui
