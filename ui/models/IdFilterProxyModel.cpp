#include "models/IdFilterProxyModel.h"

#include "models/TaskTableModel.h"

namespace km::ui {

IdFilterProxyModel::IdFilterProxyModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(TaskTableModel::SortRole);
}

void IdFilterProxyModel::setVisibleIds(std::optional<QSet<QString>> ids)
{
    m_ids = std::move(ids);
    invalidateFilter();
}

bool IdFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (!m_ids)
        return true;
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    return m_ids->contains(i.data(TaskTableModel::TaskIdRole).toString());
}

}  // namespace km::ui
