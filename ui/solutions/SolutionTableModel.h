#pragma once
// The solution review queue as a table: a snapshot of SolutionListing values (SolutionReviewService::list), one row
// each, adapted for views; no SQL. setSolutions() updates rows in place when the ids are the same, so a refresh
// keeps the selection. GUI thread.

#include "services/SolutionReviewService.h"

#include <QAbstractTableModel>

namespace km::ui {

class SolutionTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Task, Origin, Verdict, Speedup, Gpu, Harness, Review, Reviewer, Gate, Created, ColumnCount };
    enum Role {
        SolutionIdRole = Qt::UserRole + 1,  // qint64
        SortRole,                           // numbers as numbers; a missing speedup sorts last
        GateOkRole,                         // bool: the acceptance gate is met
    };

    explicit SolutionTableModel(QObject* parent = nullptr);

    void setSolutions(const QList<SolutionListing>& solutions);
    const QList<SolutionListing>& solutions() const { return m_rows; }
    const SolutionListing* listing(int row) const;
    int rowOf(qint64 id) const;  // -1: not listed

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<SolutionListing> m_rows;
};

}  // namespace km::ui
