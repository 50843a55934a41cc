#pragma once
// One reviewer's keyboard review: the queue (the caller's filter order), the current task, the draft decision
// (decision, reason, comment) and this session's decisions, written through the StoreWorker (TaskStore::review on
// its thread). GUI thread; no widgets; runs no SQL.

#include "model/Review.h"
#include "store/TaskQuery.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>

namespace km {
class StoreWorker;
}

namespace km::ui {

struct SessionDecision {
    ReviewRecord record;  // as drafted until the store answers (then as stored: id, time)
    bool undone = false;
    quint64 serial = 0;  // this session's number for it, stable while the store answers
};

// "accepted", "needs changes": a status as the panel writes it.
QString statusText(ReviewStatus s);

struct ReviewProgress {
    int reviewed = 0;  // queue tasks with a decision of this session (not undone)
    int total = 0;     // reviewed + queue tasks still needing review
};

// Semantics:
// - The draft belongs to the current task: a reason code, a comment, and (for save()) a chosen decision. Moving to
//   another task clears it.
// - decide(s) records s with the draft reason and comment, clears the draft and moves on. save() does the same with
//   the chosen decision (an error when none is chosen). skip() moves on without recording.
// - "Moves on": to the next task after the current one, in queue order and wrapping around, that needs review
//   (draft, in review, needs changes) and has no decision of this session. Skipped tasks come after all the others.
//   When none is left, there is no current task.
// - undo() writes a new review back to the status before the latest decision not yet undone (reason "undo"), and
//   makes its task current; repeated, it walks further back. Nothing is deleted: the audit log only grows.
// - Decisions and undos take effect here at once and are written in order behind it; decisionRecorded() follows
//   each write. A write the store refuses is taken back here, with error() (an undo over someone else's later
//   decision, a task gone, a store that stays locked).
class ReviewSession : public QObject {
    Q_OBJECT
public:
    ReviewSession(StoreWorker& store, QString reviewer, QObject* parent = nullptr);

    const QString& reviewer() const { return m_reviewer; }
    void setReviewer(const QString& name) { m_reviewer = name; }  // the next decisions and undos carry it
    static bool needsReview(ReviewStatus s);

    // Reads the statuses of these tasks (ids the store lacks are dropped), then sets the queue (later: asked of the
    // store). The current task stays when it is in the queue; otherwise the first task needing review becomes current.
    void setQueue(const QStringList& ids);
    // The same from rows the caller already holds (the task list's snapshot): no store read.
    // For a list that already gave the session its rows: statuses and titles once per reload (updateInfo), then
    // only the order on each filter or sort change (setOrder, no copies of the rows; unknown ids are dropped).
    void updateInfo(const QList<TaskSummary>& rows);
    void setOrder(const QStringList& ids);
    void setQueue(const QList<TaskSummary>& rows);
    const QStringList& queue() const { return m_queue; }
    std::optional<ReviewStatus> statusOf(const QString& id) const;  // as last read or written by this session
    QString titleOf(const QString& id) const;

    const QString& currentTaskId() const { return m_current; }
    // Makes a task current (selected in the task list, or a past decision revisited); deciding again records a
    // new review. True when it is current now; false when the session has no row for it yet: it becomes current
    // once the store has it, or error() says the store has no such task.
    bool setCurrentTask(const QString& id);
    bool revisit(const QString& id) { return setCurrentTask(id); }

    const QString& reason() const { return m_reason; }
    const QString& comment() const { return m_comment; }
    std::optional<ReviewStatus> chosenDecision() const { return m_chosen; }
    void setReason(const QString& code);  // empty: none
    void setComment(const QString& text);
    void chooseDecision(std::optional<ReviewStatus> decision);

    bool decide(ReviewStatus to);
    bool save();
    void skip();
    bool undo();
    bool next();

    ReviewProgress progress() const;
    const QList<SessionDecision>& decisions() const { return m_decisions; }  // oldest first

Q_SIGNALS:
    void currentTaskChanged(const QString& id);  // empty: nothing left to review in the queue
    void draftChanged();
    void decisionRecorded(const km::ReviewRecord& record);  // every review this session writes, undo included
    void historyChanged();                                  // decisions() or progress() changed
    void error(const QString& message);

private:
    struct Info {
        ReviewStatus status = ReviewStatus::Draft;
        QString title;
    };
    void rebuildQueue(const QStringList& ids, const std::function<bool(const QString&)>& known);
    // Reads the rows of ids on the store's thread, then calls then(ids found); error() on failure.
    void loadInfo(const QString& channel, const QStringList& ids, std::function<void(const QSet<QString>&)> then);
    void record(ReviewRecord draft, quint64 serial, bool isUndo);
    void takeBack(quint64 serial, bool isUndo, const QString& message);
    qsizetype indexOf(quint64 serial) const;
    bool pending(const QString& id) const;
    QString findNext(const QString& from) const;
    bool clearDraft();                  // true when something was cleared
    void moveTo(const QString& id);     // sets current, clears the draft, emits
    bool fail(const QString& message);  // emits error(), returns false

    StoreWorker& m_store;
    QString m_reviewer;
    QStringList m_queue;
    QHash<QString, int> m_position;
    QHash<QString, Info> m_info;
    QSet<QString> m_skipped;
    QHash<QString, int> m_liveDecisions;  // task id -> decisions of this session not undone
    QList<SessionDecision> m_decisions;
    QString m_current;
    QString m_reason;
    QString m_comment;
    std::optional<ReviewStatus> m_chosen;
    QString m_lookingUp;   // the task setCurrentTask() waits for, if any
    quint64 m_serial = 0;  // the last SessionDecision::serial given
    // serial -> the stored review's id, written by the decision's job and read by its undo's (both on the store's
    // thread, in that order): an undo asked before the decision's answer still names it.
    QHash<quint64, std::shared_ptr<qint64>> m_storedIds;
};

}  // namespace km::ui
