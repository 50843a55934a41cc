#pragma once
// Filters and sorts the solution queue (SolutionTableModel): task, origin, review statuses, latest verdict status,
// last reviewer and a free-text search, all combined. The filtered rows are the review queue ("n of m"). GUI thread.

#include "model/Task.h"

#include <QSortFilterProxyModel>

namespace km::ui {

struct SolutionViewFilter {
    QString taskId;                      // exact
    QString origin;                      // manual, agent, import; empty: any
    QList<ReviewStatus> reviewStatuses;  // any of; empty: any
    QString verdictStatus;               // latest verdict's; "NONE": not verified; empty: any
    QString reviewer;                    // last reviewer, exact
    QString search;                      // substring of task, origin, verdict, GPU, reviewer (case-insensitive)
    bool operator==(const SolutionViewFilter&) const = default;
};

class SolutionFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit SolutionFilterProxy(QObject* parent = nullptr);

    void setFilter(const SolutionViewFilter& f);
    const SolutionViewFilter& filter() const { return m_filter; }
    // Visible rows and all rows of the source.
    std::pair<int, int> counts() const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    SolutionViewFilter m_filter;
};

}  // namespace km::ui
