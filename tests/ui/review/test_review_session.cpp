// ReviewSession on a real store seeded from the bundled tasks: queue order, moving on, decide/skip/undo/revisit,
// progress, and what lands in the reviews table and the append-only audit log.
#include "ReviewTestStore.h"
#include "review/ReviewSession.h"

#include <QSignalSpy>

using namespace km;
using km::ui::ReviewSession;

class TestReviewSession : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<TaskStore> m_store;     // the test's own connection, for setup and checks
    std::unique_ptr<StoreWorker> m_worker;  // the session's
    QStringList m_q;  // six bundled tasks, in reverse id order: the "filter order" the caller gives
    QHash<QString, ReviewStatus> m_initial;

    QString id(int i) const { return m_q.at(i); }
    bool settled() const { return test::settle(*m_worker); }  // the session's reads and writes answered

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_store = test::openSeededStore(*m_dir);
        QVERIFY(m_store);
        m_worker = test::openWorker(m_store->path());
        const QStringList all = m_store->matchingIds({}).value();
        QVERIFY(all.size() >= 6);
        m_q.clear();
        for (int i = 5; i >= 0; --i)
            m_q.append(all.at(i));
        m_initial.clear();
        for (const QString& t : m_q) {
            m_initial.insert(t, test::statusIn(*m_store, t));
            QVERIFY(ReviewSession::needsReview(m_initial.value(t)));  // bundled tasks are draft or in review
        }
    }

    void queueFollowsTheCallersOrderAndSkipsDecidedTasks()
    {
        QVERIFY(m_store->review(id(1), ReviewStatus::Accepted, "setup", {}, {}).ok());
        ReviewSession s(*m_worker, "anna");
        QSignalSpy current(&s, &ReviewSession::currentTaskChanged);
        s.setQueue(m_q + QStringList{"no-such-task", id(0)});
        QVERIFY(settled());
        QCOMPARE(s.queue(), m_q);  // unknown ids and repeats dropped, order kept
        QCOMPARE(s.currentTaskId(), id(0));
        QCOMPARE(current.size(), 1);
        QCOMPARE(s.progress().reviewed, 0);
        QCOMPARE(s.progress().total, 5);  // id(1) is accepted: it needs no review
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), id(2));  // id(1) passed over
        QCOMPARE(current.last().at(0).toString(), id(2));
        QCOMPARE(s.progress().reviewed, 1);
        QCOMPARE(s.progress().total, 5);
    }

    void orderFromAListThatAlreadyHasTheRows()
    {
        ReviewSession s(*m_worker, "anna");
        TaskFilter only;
        only.ids = m_q;
        s.updateInfo(m_store->summaries(only).value());
        QStringList reversed(m_q.crbegin(), m_q.crend());
        s.setOrder(reversed + QStringList{"never-given"});
        QCOMPARE(s.queue(), reversed);  // the new order; ids the session has no row for are dropped
        QCOMPARE(s.currentTaskId(), reversed.first());
        QCOMPARE(s.progress().total, int(m_q.size()));
        s.setOrder(m_q.mid(0, 2));  // a narrower filter
        QCOMPARE(s.queue(), m_q.mid(0, 2));
        QVERIFY(m_q.mid(0, 2).contains(s.currentTaskId()));
    }

    void decideStoresReviewerReasonAndCommentInReviewsAndAudit()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q);
        QVERIFY(settled());
        QSignalSpy recorded(&s, &ReviewSession::decisionRecorded);
        s.setReason("R2");
        s.setComment("clear spec");
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        QCOMPARE(toString(test::statusIn(*m_store, id(0))), toString(ReviewStatus::Accepted));
        const auto reviews = m_store->reviews(id(0)).value();
        QCOMPARE(reviews.size(), 1);
        QCOMPARE(reviews.last().reviewer, QString("anna"));
        QCOMPARE(reviews.last().reason, QString("R2"));
        QCOMPARE(reviews.last().comment, QString("clear spec"));
        const auto audit = test::statusEntries(*m_store, id(0));
        QCOMPARE(audit.size(), 1);
        QCOMPARE(audit.last().actor, QString("anna"));
        QCOMPARE(audit.last().reason, QString("R2"));
        QCOMPARE(audit.last().detail.value("comment").toString(), QString("clear spec"));
        QCOMPARE(audit.last().detail.value("to").toString(), QString("accepted"));
        QCOMPARE(recorded.size(), 1);
        QCOMPARE(recorded.at(0).at(0).value<ReviewRecord>().taskId, id(0));
        // The draft belongs to the decided task: cleared for the next one.
        QVERIFY(s.reason().isEmpty() && s.comment().isEmpty());
        QVERIFY(s.decide(ReviewStatus::Rejected));
        QVERIFY(settled());
        QVERIFY(m_store->reviews(id(1)).value().last().reason.isEmpty());
    }

    void skipRecordsNothingAndSkippedTasksComeBackLast()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q.mid(0, 3));
        QVERIFY(settled());
        s.skip();
        QCOMPARE(s.currentTaskId(), id(1));
        QVERIFY(m_store->reviews(id(0)).value().isEmpty());
        QVERIFY(test::statusEntries(*m_store, id(0)).isEmpty());
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), id(2));
        s.skip();
        QCOMPARE(s.currentTaskId(), id(0));  // nothing else left: the skipped ones, in order
        QVERIFY(s.decide(ReviewStatus::Rejected));
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), id(2));
        QSignalSpy current(&s, &ReviewSession::currentTaskChanged);
        QSignalSpy errors(&s, &ReviewSession::error);
        QVERIFY(s.decide(ReviewStatus::NeedsChanges));
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), QString());  // done: no current task
        QCOMPARE(current.last().at(0).toString(), QString());
        QCOMPARE(s.progress().reviewed, 3);
        QCOMPARE(s.progress().total, 3);
        QVERIFY(!s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        QCOMPARE(errors.size(), 1);
    }

    void needsChangesCountsAsReviewedAndDoesNotComeBack()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q.mid(0, 2));
        QVERIFY(settled());
        QVERIFY(s.decide(ReviewStatus::NeedsChanges));
        QVERIFY(settled());
        QCOMPARE(toString(test::statusIn(*m_store, id(0))), toString(ReviewStatus::NeedsChanges));
        QCOMPARE(s.currentTaskId(), id(1));
        QCOMPARE(s.progress().reviewed, 1);
        QCOMPARE(s.progress().total, 2);
        QVERIFY(s.next());  // wraps around, but id(0) was decided in this session
        QCOMPARE(s.currentTaskId(), id(1));
    }

    void undoAppendsARestoringReviewAndWalksBack()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q);
        QVERIFY(settled());
        s.setComment("wrong shapes");
        QVERIFY(s.decide(ReviewStatus::Rejected));
        QVERIFY(settled());
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        const qsizetype auditBefore = m_store->audit().value().size();
        const qint64 firstAuditId = test::statusEntries(*m_store, id(0)).first().id;

        QSignalSpy current(&s, &ReviewSession::currentTaskChanged);
        QVERIFY(s.undo());  // the latest: id(1)
        QVERIFY(settled());
        QCOMPARE(toString(test::statusIn(*m_store, id(1))), toString(m_initial.value(id(1))));
        QCOMPARE(toString(test::statusIn(*m_store, id(0))), toString(ReviewStatus::Rejected));
        QCOMPARE(s.currentTaskId(), id(1));
        QCOMPARE(current.size(), 1);
        QVERIFY(s.undo());  // then the one before
        QVERIFY(settled());
        QCOMPARE(toString(test::statusIn(*m_store, id(0))), toString(m_initial.value(id(0))));
        QCOMPARE(s.currentTaskId(), id(0));
        QCOMPARE(s.progress().reviewed, 0);
        QVERIFY(s.decisions().at(0).undone && s.decisions().at(1).undone);

        // Append-only: two entries more, the first decision still there.
        QCOMPARE(m_store->audit().value().size(), auditBefore + 2);
        const auto entries = test::statusEntries(*m_store, id(0));
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.first().id, firstAuditId);
        QCOMPARE(entries.first().detail.value("comment").toString(), QString("wrong shapes"));
        QCOMPARE(entries.last().reason, QString("undo"));
        QCOMPARE(entries.last().actor, QString("anna"));
        QCOMPARE(entries.last().detail.value("from").toString(), QString("rejected"));
        QCOMPARE(entries.last().detail.value("to").toString(), toString(m_initial.value(id(0))));
        QCOMPARE(m_store->reviews(id(0)).value().size(), 2);

        QSignalSpy errors(&s, &ReviewSession::error);
        QVERIFY(!s.undo());  // nothing of this session left
        QVERIFY(settled());
        QCOMPARE(errors.size(), 1);
        QCOMPARE(m_store->audit().value().size(), auditBefore + 2);
    }

    void undoRefusesWhenSomeoneElseChangedTheTask()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q);
        QVERIFY(settled());
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        QVERIFY(m_store->review(id(0), ReviewStatus::Rejected, "bob", "R3", {}).ok());
        QSignalSpy errors(&s, &ReviewSession::error);
        s.undo();  // taken back when the store refuses it: the error comes with the answer
        QVERIFY(settled());
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.at(0).at(0).toString().contains("rejected"), qPrintable(errors.at(0).at(0).toString()));
        QCOMPARE(toString(test::statusIn(*m_store, id(0))), toString(ReviewStatus::Rejected));  // bob's decision stands
    }

    void revisitAndDecideAgainRecordsANewReview()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q);
        QVERIFY(settled());
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), id(2));
        QVERIFY(s.revisit(id(0)));
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), id(0));
        s.setReason("R1");
        QVERIFY(s.decide(ReviewStatus::Rejected));
        QVERIFY(settled());
        const auto reviews = m_store->reviews(id(0)).value();
        QCOMPARE(reviews.size(), 2);
        QCOMPARE(toString(reviews.last().from), toString(ReviewStatus::Accepted));
        QCOMPARE(toString(reviews.last().to), toString(ReviewStatus::Rejected));
        QCOMPARE(s.progress().reviewed, 2);  // tasks, not decisions
        QCOMPARE(s.currentTaskId(), id(2));
        QVERIFY(s.undo());  // back to the status before the second decision
        QVERIFY(settled());
        QCOMPARE(toString(test::statusIn(*m_store, id(0))), toString(ReviewStatus::Accepted));
        QCOMPARE(s.progress().reviewed, 2);  // the first decision on id(0) still counts
    }

    void saveRecordsTheChosenDecision()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q);
        QVERIFY(settled());
        QSignalSpy errors(&s, &ReviewSession::error);
        QVERIFY(!s.save());
        QVERIFY(settled());
        QCOMPARE(errors.size(), 1);
        QVERIFY(m_store->reviews(id(0)).value().isEmpty());
        s.chooseDecision(ReviewStatus::Rejected);
        s.setReason("R1");
        s.setComment("spec says softmax, reference does log-softmax");
        QVERIFY(s.save());
        QVERIFY(settled());
        const ReviewRecord r = m_store->reviews(id(0)).value().last();
        QCOMPARE(toString(r.to), toString(ReviewStatus::Rejected));
        QCOMPARE(r.reason, QString("R1"));
        QCOMPARE(r.comment, QString("spec says softmax, reference does log-softmax"));
        QVERIFY(!s.chosenDecision().has_value());
    }

    // A decision the store refuses (here: a row the store does not have) is taken back once the store answers: gone
    // from decisions() and the progress, the status as it was, and error() says why.
    void refusedDecisionIsTakenBack()
    {
        ReviewSession s(*m_worker, "anna");
        TaskSummary ghost;
        ghost.id = "not-in-the-store";
        ghost.title = "Ghost";
        ghost.status = ReviewStatus::Draft;
        s.setQueue(QList<TaskSummary>{ghost});
        QCOMPARE(s.currentTaskId(), ghost.id);
        QSignalSpy errors(&s, &ReviewSession::error);
        QSignalSpy recorded(&s, &ReviewSession::decisionRecorded);
        QVERIFY(s.decide(ReviewStatus::Accepted));
        QCOMPARE(s.decisions().size(), 1);  // at once, before the store answers
        QVERIFY(settled());
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.at(0).at(0).toString().contains(ghost.id), qPrintable(errors.at(0).at(0).toString()));
        QVERIFY(s.decisions().isEmpty());
        QCOMPARE(recorded.size(), 0);
        QCOMPARE(s.progress().reviewed, 0);
        QCOMPARE(s.progress().total, 1);
        QCOMPARE(toString(*s.statusOf(ghost.id)), toString(ReviewStatus::Draft));
    }

    void queueFromRowsTheCallerHolds()
    {
        QVERIFY(m_store->review(id(2), ReviewStatus::Rejected, "setup", {}, {}).ok());
        TaskFilter f;
        f.ids = m_q;
        const QList<TaskSummary> rows = m_store->summaries(f).value();  // id order: m_q reversed
        ReviewSession s(*m_worker, "anna");
        s.setQueue(rows);
        QCOMPARE(s.queue(), QStringList(m_q.rbegin(), m_q.rend()));
        QCOMPARE(s.currentTaskId(), id(5));
        QCOMPARE(s.progress().total, 5);
        QCOMPARE(s.titleOf(id(5)), rows.first().title);
        QVERIFY(!s.titleOf(id(5)).isEmpty());
    }

    void setQueueKeepsTheCurrentTaskWhileItIsListed()
    {
        ReviewSession s(*m_worker, "anna");
        s.setQueue(m_q);
        QVERIFY(settled());
        QVERIFY(s.setCurrentTask(id(3)));
        QVERIFY(settled());
        s.setComment("half written");
        QStringList reversed(m_q.rbegin(), m_q.rend());
        s.setQueue(reversed);
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), id(3));
        QCOMPARE(s.comment(), QString("half written"));
        s.setQueue(m_q.mid(4));  // id(3) filtered out
        QVERIFY(settled());
        QCOMPARE(s.currentTaskId(), id(4));
        QVERIFY(s.comment().isEmpty());
        QSignalSpy errors(&s, &ReviewSession::error);
        QVERIFY(!s.setCurrentTask("no-such-task"));
        QVERIFY(settled());
        QCOMPARE(errors.size(), 1);
        QCOMPARE(s.currentTaskId(), id(4));
    }
};

QTEST_GUILESS_MAIN(TestReviewSession)
#include "test_review_session.moc"
