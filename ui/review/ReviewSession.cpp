#include "review/ReviewSession.h"

#include "store/TaskStore.h"

namespace km::ui {

namespace {
constexpr int kIdsPerQuery = 500;  // well under SQLite's limit on bound parameters
}

QString statusText(ReviewStatus s)
{
    return toString(s).replace(QLatin1Char('_'), QLatin1Char(' '));
}

ReviewSession::ReviewSession(TaskStore& store, QString reviewer, QObject* parent)
    : QObject(parent)
    , m_store(store)
    , m_reviewer(std::move(reviewer))
{
}

bool ReviewSession::needsReview(ReviewStatus s)
{
    return s == ReviewStatus::Draft || s == ReviewStatus::InReview || s == ReviewStatus::NeedsChanges;
}

std::optional<QSet<QString>> ReviewSession::loadInfo(const QStringList& ids)
{
    QSet<QString> found;
    for (qsizetype at = 0; at < ids.size(); at += kIdsPerQuery) {
        TaskFilter filter;
        filter.ids = ids.mid(at, kIdsPerQuery);
        auto rows = m_store.summaries(filter);
        if (!rows) {
            fail(tr("Cannot read the review queue: %1").arg(rows.error().message));
            return std::nullopt;
        }
        for (const TaskSummary& s : rows.value()) {
            m_info.insert(s.id, Info{s.status, s.title});
            found.insert(s.id);
        }
    }
    return found;
}

bool ReviewSession::setQueue(const QStringList& ids)
{
    auto found = loadInfo(ids);
    if (!found)
        return false;
    rebuildQueue(ids, [&found](const QString& id) { return found->contains(id); });
    return true;
}

void ReviewSession::updateInfo(const QList<TaskSummary>& rows)
{
    for (const TaskSummary& r : rows)
        m_info.insert(r.id, Info{r.status, r.title});
}

void ReviewSession::setOrder(const QStringList& ids)
{
    rebuildQueue(ids, [this](const QString& id) { return m_info.contains(id); });
}

void ReviewSession::setQueue(const QList<TaskSummary>& rows)
{
    QStringList ids;
    ids.reserve(rows.size());
    for (const TaskSummary& r : rows) {
        m_info.insert(r.id, Info{r.status, r.title});
        ids.append(r.id);
    }
    rebuildQueue(ids, [](const QString&) { return true; });
}

void ReviewSession::rebuildQueue(const QStringList& ids, const std::function<bool(const QString&)>& known)
{
    m_queue.clear();
    m_position.clear();
    m_queue.reserve(ids.size());
    m_position.reserve(ids.size());
    for (const QString& id : ids) {
        if (known(id) && !m_position.contains(id)) {
            m_position.insert(id, int(m_queue.size()));
            m_queue.append(id);
        }
    }
    Q_EMIT historyChanged();  // the progress counts the new queue
    if (m_current.isEmpty() || !m_position.contains(m_current))
        moveTo(findNext({}));
}

std::optional<ReviewStatus> ReviewSession::statusOf(const QString& id) const
{
    const auto it = m_info.constFind(id);
    return it == m_info.constEnd() ? std::nullopt : std::optional<ReviewStatus>(it->status);
}

QString ReviewSession::titleOf(const QString& id) const
{
    return m_info.value(id).title;
}

bool ReviewSession::setCurrentTask(const QString& id)
{
    if (id == m_current)
        return true;
    if (!id.isEmpty() && !m_info.contains(id)) {
        auto found = loadInfo({id});
        if (!found)
            return false;
        if (found->isEmpty())
            return fail(tr("There is no task '%1' in the store").arg(id));
    }
    moveTo(id);
    return true;
}

void ReviewSession::setReason(const QString& code)
{
    if (code == m_reason)
        return;
    m_reason = code;
    Q_EMIT draftChanged();
}

void ReviewSession::setComment(const QString& text)
{
    if (text == m_comment)
        return;
    m_comment = text;
    Q_EMIT draftChanged();
}

void ReviewSession::chooseDecision(std::optional<ReviewStatus> decision)
{
    if (decision == m_chosen)
        return;
    m_chosen = decision;
    Q_EMIT draftChanged();
}

bool ReviewSession::decide(ReviewStatus to)
{
    if (m_current.isEmpty())
        return fail(tr("No task to decide on: nothing in this list needs review"));
    const QString id = m_current;
    auto r = m_store.review(id, to, m_reviewer, m_reason, m_comment);
    if (!r)
        return fail(tr("Could not record the decision on %1: %2").arg(id, r.error().message));
    m_decisions.append({r.value(), false});
    m_liveDecisions[id] += 1;
    m_info[id].status = to;
    m_skipped.remove(id);
    Q_EMIT decisionRecorded(r.value());
    Q_EMIT historyChanged();
    moveTo(findNext(id));
    return true;
}

bool ReviewSession::save()
{
    if (!m_chosen)
        return fail(tr("Choose a decision first: accept, reject or needs changes"));
    return decide(*m_chosen);
}

void ReviewSession::skip()
{
    if (m_current.isEmpty())
        return;
    m_skipped.insert(m_current);
    moveTo(findNext(m_current));
}

bool ReviewSession::undo()
{
    qsizetype i = m_decisions.size() - 1;
    while (i >= 0 && m_decisions.at(i).undone)
        --i;
    if (i < 0)
        return fail(tr("Nothing to undo: no decision of this session is left"));
    const ReviewRecord last = m_decisions.at(i).record;
    // Someone else may have reviewed the task since: restoring over their decision would lose it.
    auto found = loadInfo({last.taskId});
    if (!found)
        return false;
    if (found->isEmpty())
        return fail(tr("Cannot undo: task %1 is no longer in the store").arg(last.taskId));
    const ReviewStatus now = m_info.value(last.taskId).status;
    if (now != last.to)
        return fail(tr("Not undone: %1 is %2 now, not %3 as your decision left it")
                        .arg(last.taskId, toString(now), toString(last.to)));
    auto r = m_store.review(last.taskId, last.from, m_reviewer, QStringLiteral("undo"),
                            tr("undo of review %1").arg(last.id));
    if (!r)
        return fail(tr("Could not undo the decision on %1: %2").arg(last.taskId, r.error().message));
    m_decisions[i].undone = true;
    if (--m_liveDecisions[last.taskId] <= 0)
        m_liveDecisions.remove(last.taskId);
    m_info[last.taskId].status = last.from;
    m_skipped.remove(last.taskId);
    Q_EMIT decisionRecorded(r.value());
    Q_EMIT historyChanged();
    moveTo(last.taskId);
    return true;
}

bool ReviewSession::next()
{
    moveTo(findNext(m_current));
    return !m_current.isEmpty();
}

ReviewProgress ReviewSession::progress() const
{
    ReviewProgress p;
    int open = 0;
    for (const QString& id : m_queue) {
        if (m_liveDecisions.contains(id))
            ++p.reviewed;
        else if (needsReview(m_info.value(id).status))
            ++open;
    }
    p.total = p.reviewed + open;
    return p;
}

bool ReviewSession::pending(const QString& id) const
{
    return !m_liveDecisions.contains(id) && needsReview(m_info.value(id).status);
}

QString ReviewSession::findNext(const QString& from) const
{
    const auto n = int(m_queue.size());
    const int start = m_position.value(from, -1);
    QString skippedCandidate;
    for (int step = 1; step <= n; ++step) {  // the task after `from` first; `from` itself last
        const QString& id = m_queue.at((start + step) % n);
        if (!pending(id))
            continue;
        if (!m_skipped.contains(id))
            return id;
        if (skippedCandidate.isEmpty())
            skippedCandidate = id;
    }
    return skippedCandidate;
}

bool ReviewSession::clearDraft()
{
    const bool had = !m_reason.isEmpty() || !m_comment.isEmpty() || m_chosen.has_value();
    m_reason.clear();
    m_comment.clear();
    m_chosen.reset();
    return had;
}

void ReviewSession::moveTo(const QString& id)
{
    const bool changed = id != m_current;
    m_current = id;
    if (clearDraft())
        Q_EMIT draftChanged();
    if (changed)
        Q_EMIT currentTaskChanged(m_current);
}

bool ReviewSession::fail(const QString& message)
{
    Q_EMIT error(message);
    return false;
}

}  // namespace km::ui
