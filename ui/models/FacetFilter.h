#pragma once
// The task list's facets (status, level, category, presentation shown) as a value, with the counts the filter
// panel shows. Pure functions over summaries; no store access.

#include "store/TaskQuery.h"

#include <QMap>
#include <QSet>
#include <functional>

namespace km {
inline size_t qHash(ReviewStatus s, size_t seed = 0) noexcept
{
    return ::qHash(int(s), seed);
}
inline size_t qHash(Presentation p, size_t seed = 0) noexcept
{
    return ::qHash(int(p), seed);
}
}  // namespace km

namespace km::ui {

struct FacetFilter {
    QSet<ReviewStatus> statuses;       // any of; empty: all
    QSet<int> levels;                  // any of
    QSet<QString> categories;          // any of
    QSet<Presentation> presentations;  // shown to the model: all of
    bool accepts(const TaskSummary& s) const;
    // Each facet on its own; accepts() is all four.
    bool acceptsStatus(const TaskSummary& s) const { return statuses.isEmpty() || statuses.contains(s.status); }
    bool acceptsLevel(const TaskSummary& s) const { return levels.isEmpty() || levels.contains(s.level); }
    bool acceptsCategory(const TaskSummary& s) const;
    bool acceptsPresentations(const TaskSummary& s) const;
    bool isEmpty() const
    {
        return statuses.isEmpty() && levels.isEmpty() && categories.isEmpty() && presentations.isEmpty();
    }
    bool operator==(const FacetFilter&) const = default;
};

struct FacetCounts {
    QMap<ReviewStatus, int> statuses;
    QMap<int, int> levels;
    QMap<QString, int> categories;
    QMap<Presentation, int> presentations;
};

// Counts over the summaries a predicate keeps (the rows the search matches).
FacetCounts countFacets(const QList<TaskSummary>& rows, const std::function<bool(const TaskSummary&)>& keep);
// As faceted search does: each facet's values are counted over the rows the search keeps and every OTHER facet's
// selection accepts (the presentations, an all-of facet, also its own), so a count says how many rows checking that
// value would show.
FacetCounts countFacets(const QList<TaskSummary>& rows, const std::function<bool(const TaskSummary&)>& keep,
                        const FacetFilter& selected);

}  // namespace km::ui
