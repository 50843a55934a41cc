#include "models/FacetFilter.h"

namespace km::ui {

bool FacetFilter::accepts(const TaskSummary& s) const
{
    return acceptsStatus(s) && acceptsLevel(s) && acceptsCategory(s) && acceptsPresentations(s);
}

bool FacetFilter::acceptsCategory(const TaskSummary& s) const
{
    if (categories.isEmpty())
        return true;
    for (const QString& c : s.categories)
        if (categories.contains(c))
            return true;
    return false;
}

bool FacetFilter::acceptsPresentations(const TaskSummary& s) const
{
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

FacetCounts countFacets(const QList<TaskSummary>& rows, const std::function<bool(const TaskSummary&)>& keep,
                        const FacetFilter& selected)
{
    FacetCounts c;
    for (const TaskSummary& s : rows) {
        if (keep && !keep(s))
            continue;
        const bool status = selected.acceptsStatus(s), level = selected.acceptsLevel(s),
                   category = selected.acceptsCategory(s), shown = selected.acceptsPresentations(s);
        if (level && category && shown)
            ++c.statuses[s.status];
        if (status && category && shown)
            ++c.levels[s.level];
        if (status && level && shown)
            for (const QString& cat : s.categories)
                ++c.categories[cat];
        if (status && level && category && shown)  // an all-of facet narrows: checking p also keeps these
            for (Presentation p : allPresentations())
                if (s.shown.has(p))
                    ++c.presentations[p];
    }
    return c;
}

}  // namespace km::ui
