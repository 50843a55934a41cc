#include "models/FacetFilter.h"

namespace km::ui {

bool FacetFilter::accepts(const TaskSummary& s) const
{
    if (!statuses.isEmpty() && !statuses.contains(s.status))
        return false;
    if (!levels.isEmpty() && !levels.contains(s.level))
        return false;
    if (!categories.isEmpty()) {
        bool any = false;
        for (const QString& c : s.categories)
            any = any || categories.contains(c);
        if (!any)
            return false;
    }
    for (Presentation p : presentations)
        if (!s.shown.has(p))
            return false;
    return true;
}

FacetCounts countFacets(const QList<TaskSummary>& rows, const std::function<bool(const TaskSummary&)>& keep)
{
    FacetCounts c;
    for (const TaskSummary& s : rows) {
        if (keep && !keep(s))
            continue;
        ++c.statuses[s.status];
        ++c.levels[s.level];
        for (const QString& cat : s.categories)
            ++c.categories[cat];
        for (Presentation p : allPresentations())
            if (s.shown.has(p))
                ++c.presentations[p];
    }
    return c;
}

}  // namespace km::ui
