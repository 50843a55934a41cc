#pragma once
// Sort and filter over the task table: the rows whose id a search returned (all when there is no search) and
// that the facets accept. The store answers a search with ids; the rows stay in the source model. GUI thread.

#include "models/FacetFilter.h"

#include <QSet>
#include <QSortFilterProxyModel>
#include <optional>

namespace km::ui {

class TaskTableModel;

class TaskFilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit TaskFilterProxyModel(QObject* parent = nullptr);
    void setSourceTable(TaskTableModel* model);
    void setVisibleIds(std::optional<QSet<QString>> ids);  // nullopt: every row
    void setFacets(FacetFilter facets);
    const FacetFilter& facets() const { return m_facets; }
    bool matchesSearch(const QString& id) const { return !m_ids || m_ids->contains(id); }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    TaskTableModel* m_table = nullptr;
    std::optional<QSet<QString>> m_ids;
    FacetFilter m_facets;
};

}  // namespace km::ui
