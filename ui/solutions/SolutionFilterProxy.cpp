// The solution queue's filter (SolutionFilterProxy.h).
#include "solutions/SolutionFilterProxy.h"

#include "solutions/SolutionTableModel.h"

namespace km::ui {

SolutionFilterProxy::SolutionFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(SolutionTableModel::SortRole);
}

void SolutionFilterProxy::setFilter(const SolutionViewFilter& f)
{
    if (f == m_filter)
        return;
    m_filter = f;
    invalidateFilter();
}

std::pair<int, int> SolutionFilterProxy::counts() const
{
    return {rowCount(), sourceModel() ? sourceModel()->rowCount() : 0};
}

bool SolutionFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex&) const
{
    const auto* model = qobject_cast<const SolutionTableModel*>(sourceModel());
    const SolutionListing* s = model ? model->listing(sourceRow) : nullptr;
    if (!s)
        return false;
    const SolutionViewFilter& f = m_filter;
    if (!f.taskId.isEmpty() && s->taskId != f.taskId)
        return false;
    if (!f.origin.isEmpty() && s->origin != f.origin)
        return false;
    if (!f.reviewStatuses.isEmpty() && !f.reviewStatuses.contains(s->reviewStatus))
        return false;
    if (!f.verdictStatus.isEmpty()) {
        const QString latest = s->latestStatus.isEmpty() ? QStringLiteral("NONE") : s->latestStatus;
        if (latest != f.verdictStatus)
            return false;
    }
    if (!f.reviewer.isEmpty() && s->lastReviewer != f.reviewer)
        return false;
    if (!f.search.isEmpty()) {
        const QStringList fields{s->taskId,  s->origin,       s->latestStatus,
                                 s->gpuName, s->lastReviewer, QString::number(s->id)};
        if (std::none_of(fields.cbegin(), fields.cend(),
                         [&](const QString& t) { return t.contains(f.search, Qt::CaseInsensitive); }))
            return false;
    }
    return true;
}

}  // namespace km::ui
