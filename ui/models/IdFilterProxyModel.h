#pragma once
// Sort and filter over the task table: shows the rows whose task id is in a set (all rows when no set is given).
// The store answers a search with ids; the rows themselves stay in the source model. GUI thread.

#include <QSet>
#include <QSortFilterProxyModel>
#include <optional>

namespace km::ui {

class IdFilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit IdFilterProxyModel(QObject* parent = nullptr);
    void setVisibleIds(std::optional<QSet<QString>> ids);  // nullopt: every row

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::optional<QSet<QString>> m_ids;
};

}  // namespace km::ui
