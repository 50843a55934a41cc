#pragma once
// Table model over a snapshot of run summaries (store/RunQuery.h); never touches the store. A new snapshot updates
// rows in place where the ids match, so a selection survives a live refresh. GUI thread.

#include "store/RunQuery.h"

#include <QAbstractTableModel>
#include <QHash>

namespace km::ui {

class RunTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Task,
        ReplySource,
        State,
        Steps,
        BestStatus,
        BestSpeedup,
        Tokens,
        WallTime,
        Label,
        Started,
        ColumnCount
    };
    // SortRole: numbers as numbers, times as times, texts folded to lower case; a missing speedup is null (the
    // proxy sorts it last in either order).
    enum Role { RunIdRole = Qt::UserRole + 1, SortRole };

    explicit RunTableModel(QObject* parent = nullptr);

    // Rows whose id is still there are updated in place; gone ones are removed, new ones inserted; a changed order
    // is a layout change (persistent indexes follow their run).
    void setRuns(QList<RunSummary> runs);
    const QList<RunSummary>& runs() const { return m_rows; }
    const RunSummary* runAt(int row) const;
    int rowOf(qint64 id) const { return m_rowById.value(id, -1); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void reindex();
    void removeGone(const QSet<qint64>& keep);
    void reorder(const QList<RunSummary>& runs);

    QList<RunSummary> m_rows;
    QHash<qint64, int> m_rowById;
};

// "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min"
QString wallTimeText(qint64 ms);
// "9.79x"; empty without a speedup
QString speedupText(const std::optional<double>& speedup);

}  // namespace km::ui
