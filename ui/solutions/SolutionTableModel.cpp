// The solution queue's table model (SolutionTableModel.h).
#include "solutions/SolutionTableModel.h"

#include <limits>

namespace km::ui {

namespace {
QString orDash(const QString& s)
{
    return s.isEmpty() ? QStringLiteral("–") : s;
}

QVariant display(const SolutionListing& s, int column)
{
    switch (column) {
    case SolutionTableModel::Id: return s.id;
    case SolutionTableModel::Task: return s.taskId;
    case SolutionTableModel::Origin:
        return s.parentId ? QStringLiteral("%1 (fix of %2)").arg(s.origin).arg(s.parentId) : s.origin;
    case SolutionTableModel::Verdict: return s.latestStatus.isEmpty() ? QStringLiteral("not verified") : s.latestStatus;
    case SolutionTableModel::Speedup:
        return s.creditedSpeedup() ? QStringLiteral("%1x").arg(*s.creditedSpeedup(), 0, 'f', 2) : QStringLiteral("–");
    case SolutionTableModel::Gpu: return s.gpuName.isEmpty() ? orDash(s.device) : s.gpuName;
    case SolutionTableModel::Harness: return orDash(s.harnessVersion);
    case SolutionTableModel::Review: return toString(s.reviewStatus);
    case SolutionTableModel::Reviewer: return orDash(s.lastReviewer);
    case SolutionTableModel::Gate:
        return s.unmetGate.isEmpty() ? QStringLiteral("ok") : gateRuleIdsOf(s.unmetGate).join(QStringLiteral(", "));
    case SolutionTableModel::Created: return s.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    default: return {};
    }
}

QVariant sortKey(const SolutionListing& s, int column)
{
    switch (column) {
    case SolutionTableModel::Id: return s.id;
    case SolutionTableModel::Speedup:  // missing last in ascending order
        return s.creditedSpeedup().value_or(std::numeric_limits<double>::max());
    case SolutionTableModel::Created: return s.createdAt;
    case SolutionTableModel::Gate: return int(s.unmetGate.size());
    default: return display(s, column);
    }
}
}  // namespace

SolutionTableModel::SolutionTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SolutionTableModel::setSolutions(const QList<SolutionListing>& solutions)
{
    bool sameIds = solutions.size() == m_rows.size();
    for (qsizetype i = 0; sameIds && i < solutions.size(); ++i)
        sameIds = solutions[i].id == m_rows[i].id;
    if (sameIds) {
        m_rows = solutions;
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = solutions;
    endResetModel();
}

const SolutionListing* SolutionTableModel::listing(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_rows[row] : nullptr;
}

int SolutionTableModel::rowOf(qint64 id) const
{
    for (qsizetype i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return int(i);
    return -1;
}

int SolutionTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SolutionTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SolutionTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SolutionListing& s = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole: return display(s, index.column());
    case Qt::ToolTipRole:
        if (index.column() == Gate && !s.unmetGate.isEmpty())
            return describeGateRules(s.unmetGate);
        if (index.column() == Speedup && s.latestSpeedup && !s.creditedSpeedup())
            return tr("Timed at %1x, but the verdict is %2: a wrong or refused result has no speedup")
                .arg(*s.latestSpeedup, 0, 'f', 2)
                .arg(s.latestStatus);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Id || index.column() == Speedup)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SolutionIdRole: return s.id;
    case SortRole: return sortKey(s, index.column());
    case GateOkRole: return s.unmetGate.isEmpty();
    default: return {};
    }
}

QVariant SolutionTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* const names[ColumnCount] = {"ID",      "Task",   "Origin",   "Verdict", "Speedup", "GPU",
                                                   "Harness", "Review", "Reviewer", "Gate",    "Created"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace km::ui
