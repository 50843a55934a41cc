// The runs table (RunTableModel.h): display texts, sort keys and the in-place snapshot update.
#include "models/RunTableModel.h"

#include "services/RunErrorText.h"

#include <QSet>

namespace km::ui {

QString wallTimeText(qint64 ms)
{
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 60000)
        return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    const qint64 s = ms / 1000;
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString speedupText(const std::optional<double>& speedup)
{
    return speedup ? QStringLiteral("%1x").arg(*speedup, 0, 'f', 2) : QString();
}

RunTableModel::RunTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunTableModel::reindex()
{
    m_rowById.clear();
    m_rowById.reserve(m_rows.size());
    for (int i = 0; i < m_rows.size(); ++i)
        m_rowById.insert(m_rows[i].id, i);
}

void RunTableModel::removeGone(const QSet<qint64>& keep)
{
    for (int end = int(m_rows.size()) - 1; end >= 0;) {
        if (keep.contains(m_rows[end].id)) {
            --end;
            continue;
        }
        int first = end;
        while (first > 0 && !keep.contains(m_rows[first - 1].id))
            --first;
        beginRemoveRows({}, first, end);
        m_rows.remove(first, end - first + 1);
        endRemoveRows();
        end = first - 1;
    }
    reindex();
}

// Every id of `runs` is in m_rows and nothing else: puts the rows in the new order, persistent indexes following.
void RunTableModel::reorder(const QList<RunSummary>& runs)
{
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    QList<qint64> ids;
    ids.reserve(before.size());
    for (const QModelIndex& i : before)
        ids.append(m_rows[i.row()].id);
    m_rows = runs;
    reindex();
    QModelIndexList after;
    after.reserve(before.size());
    for (int k = 0; k < before.size(); ++k)
        after.append(index(rowOf(ids[k]), before[k].column()));
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void RunTableModel::setRuns(QList<RunSummary> runs)
{
    if (m_rows.isEmpty()) {
        if (runs.isEmpty())
            return;
        beginResetModel();
        m_rows = std::move(runs);
        reindex();
        endResetModel();
        return;
    }
    QSet<qint64> keep;
    keep.reserve(runs.size());
    for (const RunSummary& r : runs)
        keep.insert(r.id);
    removeGone(keep);
    // Walk the new order: matching rows are updated, unknown ids inserted where they belong; an id met at another
    // place ends the walk, and what is left is a layout change.
    int i = 0;
    for (; i < runs.size(); ++i) {
        if (i < m_rows.size() && m_rows[i].id == runs[i].id) {
            m_rows[i] = runs[i];
            continue;
        }
        if (m_rowById.contains(runs[i].id))
            break;
        beginInsertRows({}, i, i);
        m_rows.insert(i, runs[i]);
        endInsertRows();
        reindex();
    }
    if (i < runs.size()) {
        QList<RunSummary> missing;
        for (int k = i; k < runs.size(); ++k)
            if (!m_rowById.contains(runs[k].id))
                missing.append(runs[k]);
        if (!missing.isEmpty()) {
            beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + missing.size() - 1));
            m_rows.append(missing);
            endInsertRows();
            reindex();
        }
        reorder(runs);
    }
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

const RunSummary* RunTableModel::runAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_rows[row] : nullptr;
}

int RunTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunSummary& r = m_rows[index.row()];
    if (role == RunIdRole)
        return r.id;
    if (role == Qt::ToolTipRole) {
        if (index.column() == Task)
            return r.taskTitle;
        if (index.column() == State && !r.error.isEmpty())
            return plainRunError(r.error);
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case Steps:
        case BestSpeedup:
        case Tokens:
        case WallTime: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default: return {};
        }
    }
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (index.column()) {
    case Task: return sort ? QVariant(r.taskId.toLower()) : QVariant(r.taskId);
    case ReplySource: return sort ? QVariant(r.replySource.toLower()) : QVariant(r.replySource);
    case State:
        // A failed run says why in its row: the plain words (a dead endpoint, a refused key), the detail in the
        // tooltip.
        if (!sort && !r.error.isEmpty())
            return tr("%1: %2").arg(toString(r.state), plainRunError(r.error).section(QStringLiteral(" — "), 0, 0));
        return toString(r.state);
    case Steps: return r.steps;
    case BestStatus: return r.bestStatus;
    case BestSpeedup:
        return sort ? (r.bestSpeedup ? QVariant(*r.bestSpeedup) : QVariant()) : QVariant(speedupText(r.bestSpeedup));
    case Tokens: return r.tokens;
    case WallTime: return sort ? QVariant(r.wallMs) : QVariant(wallTimeText(r.wallMs));
    case Label: return sort ? QVariant(r.label.toLower()) : QVariant(r.label);
    case Started:
        return sort ? QVariant(r.startedAt.toMSecsSinceEpoch())
                    : QVariant(r.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    default: return {};
    }
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Task: return tr("Task");
    case ReplySource: return tr("Reply source");
    case State: return tr("State");
    case Steps: return tr("Steps");
    case BestStatus: return tr("Best status");
    case BestSpeedup: return tr("Best speedup");
    case Tokens: return tr("Tokens");
    case WallTime: return tr("Wall time");
    case Label: return tr("Label");
    case Started: return tr("Started");
    default: return {};
    }
}

}  // namespace km::ui
