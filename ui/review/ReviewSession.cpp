#include "review/ReviewSession.h"

#include "store/StoreWorker.h"

namespace km::ui {

namespace {
constexpr int kIdsPerQuery = 500;  // well under SQLite's limit on bound parameters
}

QString statusText(ReviewStatus s)
{
    return toString(s).replace(QLatin1Char('_'), QLatin1Char(' '));
}

ReviewSession::ReviewSession(StoreWorker& store, QString reviewer, QObject* parent)
    : QObject(parent)
    , m_store(store)
    , m_reviewer(std::move(reviewer))
{
}

bool ReviewSession::needsReview(ReviewStatus s)
{
    return s == ReviewStatus::Draft || s == ReviewStatus::InReview || s == ReviewStatus::NeedsChanges;
}

void ReviewSession::loadInfo(const QString& channel, const QStringList& ids,
                             std::function<void(const QSet<QString>&)> then)
{
    m_store.submit<QList<TaskSummary>>(
        channel,
        [ids](TaskStore& store) -> Result<QList<TaskSummary>> {
            QList<TaskSummary> all;
            for (qsizetype at = 0; at < ids.size(); at += kIdsPerQuery) {
                TaskFilter filter;
                filter.ids = ids.mid(at, kIdsPerQuery);
                auto rows = store.summaries(filter);
                if (!rows)
                    return rows.error();
                all += rows.value();
            }
            return all;
        },
        this,
        [this, then = std::move(then)](Result<QList<TaskSummary>> rows) {
            if (!rows) {
                fail(tr("Cannot read the review queue: %1").arg(rows.error().message));
                return;
            }
            QSet<QString> found;
            for (const TaskSummary& s : rows.value()) {
                m_info.insert(s.id, Info{s.status, s.title});
                found.insert(s.id);
            }
            then(found);
        });
}

void ReviewSession::setQueue(const QStringList& ids)
{
    loadInfo(QStringLiteral("review-queue"), ids, [this, ids](const QSet<QString>& found) {
        rebuildQueue(ids, [&found](const QString& id) { return found.contains(id); });
    });
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
    if (id == m_current || id.isEmpty() || m_info.contains(id)) {
        m_lookingUp.clear();  // the latest choice wins over a lookup still under way
        moveTo(id);
        return true;
    }
    m_lookingUp = id;
    loadInfo(QStringLiteral("review-current"), {id}, [this, id](const QSet<QString>& found) {
        if (m_lookingUp != id)
            return;
        m_lookingUp.clear();
        if (found.isEmpty())
            fail(tr("There is no task '%1' in the store").arg(id));
        else
            moveTo(id);
    });
    return false;
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
    ReviewRecord draft;
    draft.taskId = id;
    draft.from = m_info.value(id).status;
    draft.to = to;
    draft.reviewer = m_reviewer;
    draft.reason = m_reason;
    draft.comment = m_comment;
    const quint64 serial = ++m_serial;
    m_decisions.append({draft, false, serial});
    m_liveDecisions[id] += 1;
    m_info[id].status = to;
    m_skipped.remove(id);
    record(draft, serial, false);
    Q_EMIT historyChanged();
    moveTo(findNext(id));
    return true;
}

void ReviewSession::record(ReviewRecord draft, quint64 serial, bool isUndo)
{
    std::shared_ptr<qint64> storedId = m_storedIds.value(serial);
    if (!storedId)
        storedId = m_storedIds.insert(serial, std::make_shared<qint64>(0)).value();
    const QString reviewer = m_reviewer;
    m_store.write<ReviewRecord>(
        [draft, storedId, isUndo, reviewer](TaskStore& store) -> Result<ReviewRecord> {
            if (!isUndo) {
                auto r = store.review(draft.taskId, draft.to, draft.reviewer, draft.reason, draft.comment);
                if (r)
                    *storedId = r.value().id;
                return r;
            }
            // Someone else may have reviewed the task since: restoring over their decision would lose it.
            auto now = store.task(draft.taskId);
            if (!now)
                return now.error();
            if (!now.value())
                return makeError(ErrorCode::NotFound,
                                 tr("Cannot undo: task %1 is no longer in the store").arg(draft.taskId));
            if (now.value()->status != draft.to)
                return makeError(ErrorCode::Conflict,
                                 tr("Not undone: %1 is %2 now, not %3 as your decision left it")
                                     .arg(draft.taskId, toString(now.value()->status), toString(draft.to)));
            return store.review(draft.taskId, draft.from, reviewer, QStringLiteral("undo"),
                                tr("undo of review %1").arg(*storedId));
        },
        this,
        [this, draft, serial, isUndo](Result<ReviewRecord> r) {
            if (!r) {
                const bool refused =
                    isUndo && (r.error().code == ErrorCode::Conflict || r.error().code == ErrorCode::NotFound);
                takeBack(serial, isUndo,
                         refused ? r.error().message
                                 : (isUndo ? tr("Could not undo the decision on %1: %2")
                                           : tr("Could not record the decision on %1: %2"))
                                       .arg(draft.taskId, r.error().message));
                return;
            }
            if (const qsizetype i = indexOf(serial); i >= 0 && !isUndo)
                m_decisions[i].record = r.value();
            Q_EMIT decisionRecorded(r.value());
            Q_EMIT historyChanged();
        });
}

void ReviewSession::takeBack(quint64 serial, bool isUndo, const QString& message)
{
    const qsizetype i = indexOf(serial);
    if (i >= 0) {
        const ReviewRecord r = m_decisions.at(i).record;
        if (isUndo) {
            m_decisions[i].undone = false;
            m_liveDecisions[r.taskId] += 1;
            m_info[r.taskId].status = r.to;
        } else {
            m_info[r.taskId].status = r.from;
            m_decisions.removeAt(i);
            m_storedIds.remove(serial);
            if (--m_liveDecisions[r.taskId] <= 0)
                m_liveDecisions.remove(r.taskId);
        }
        // What the store holds now: the status the write would have changed may have been changed by someone else.
        loadInfo(QStringLiteral("review-refresh/") + r.taskId, {r.taskId},
                 [this](const QSet<QString>&) { Q_EMIT historyChanged(); });
    }
    fail(message);
    Q_EMIT historyChanged();
}

qsizetype ReviewSession::indexOf(quint64 serial) const
{
    for (qsizetype i = m_decisions.size() - 1; i >= 0; --i)
        if (m_decisions.at(i).serial == serial)
            return i;
    return -1;
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
    m_decisions[i].undone = true;
    if (--m_liveDecisions[last.taskId] <= 0)
        m_liveDecisions.remove(last.taskId);
    m_info[last.taskId].status = last.from;
    m_skipped.remove(last.taskId);
    record(last, m_decisions.at(i).serial, true);
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
