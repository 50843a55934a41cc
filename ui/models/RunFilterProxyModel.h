#pragma once
// Sort and filter over the runs table: a RunFilter value (every part that is set must match) and sorting by the
// table's SortRole with a missing speedup last in either order. GUI thread.

#include "model/Trajectory.h"

#include <QList>
#include <QSortFilterProxyModel>
#include <QStringList>
#include <optional>

namespace km {
struct RunSummary;
}

namespace km::ui {

class RunTableModel;

// What the runs view shows; an empty part matches every run.
struct RunFilter {
    QList<RunState> states;
    QString task;                      // a substring of the task's id or title, case-insensitive
    QStringList replySources;          // exact texts (RunSummary::replySource)
    QStringList bestStatuses;          // exact texts; "" for a run without a verdict
    std::optional<double> speedupMin;  // a bound excludes runs without a speedup
    std::optional<double> speedupMax;
    QString label;   // exact
    QString search;  // words, each a substring of the task id or title, model, label or error
    bool operator==(const RunFilter&) const = default;
    bool isEmpty() const { return *this == RunFilter(); }
};

bool matches(const RunFilter& filter, const RunSummary& run);

class RunFilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    struct Counts {
        int visible = 0;
        int total = 0;
    };

    explicit RunFilterProxyModel(QObject* parent = nullptr);
    void setSourceTable(RunTableModel* model);
    void setFilter(RunFilter filter);
    const RunFilter& filter() const { return m_filter; }
    Counts counts() const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    RunTableModel* m_table = nullptr;
    RunFilter m_filter;
    QStringList m_words;  // the search, split and folded once
};

}  // namespace km::ui
