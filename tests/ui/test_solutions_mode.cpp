// The Solutions mode of the main window on the shipped demonstrations: Ctrl+3 shows the review queue, where 'a'
// accepts the solution (never the task shown in Tasks mode); a link opens a solution and is copied back; a task's
// "Open solutions" shows that task's solutions; M then Shift+M compares two solutions of one task, and two of
// different tasks are refused with a message.
#include "WorkbenchFixture.h"
#include "replay/CompareView.h"
#include "services/SolutionReviewService.h"
#include "services/TrajectoryTransfer.h"
#include "solutions/OverrideDialog.h"
#include "solutions/SolutionsController.h"
#include "solutions/SolutionsView.h"
#include "views/SolutionsPage.h"

#include <QClipboard>
#include <QLabel>
#include <QStatusBar>
#include <QTableView>
#include <QToolButton>

using namespace km;

class TestSolutionsMode : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;

    static ui::SolutionsPage* page(test::Workbench& b) { return b.window.solutionsPage(); }
    static QTableView* queue(test::Workbench& b) { return page(b)->view()->findChild<QTableView*>("solutionTable"); }
    QList<SolutionListing> listing() { return SolutionReviewService(m_store->database()).list().value(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_store = test::seededStore(m_dir);
        QVERIFY(m_store);
        auto seeded = seedDemonstrationsIfNoRuns(m_store->database(), "tester");
        QVERIFY(seeded.ok() && seeded.value());
        m_settings = std::make_unique<QSettings>(m_dir.filePath("settings.ini"), QSettings::IniFormat);
    }

    void aAcceptsTheSolutionNotTheTask()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        QVERIFY(QTest::qWaitForWindowActive(&b.window));
        QVERIFY(b.controller.selectTask("silu"));
        QVERIFY(b.settle());
        const int taskReviews = int(m_store->reviews("silu").value().size());
        QTest::keyClick(b.window.focusWidget(), Qt::Key_3, Qt::ControlModifier);
        QCOMPARE(toString(b.window.modes().mode()), QString("solutions"));
        QTRY_VERIFY(queue(b)->model()->rowCount() > 0);
        // A PASSED solution measured on the H200 by this harness passes the gate: 'a' accepts it plainly.
        qint64 passing = 0;
        for (const SolutionListing& l : listing())
            if (l.unmetGate.isEmpty() && passing == 0)
                passing = l.id;
        QVERIFY(passing != 0);
        page(b)->openSolution(passing);
        QVERIFY(b.settle());
        QTRY_COMPARE(page(b)->view()->currentSolutionId(), passing);
        queue(b)->setFocus();
        QTest::keyClick(queue(b), Qt::Key_A);
        QVERIFY(b.settle());
        QTRY_COMPARE(toString(SolutionReviewService(m_store->database()).status(passing).value()),
                     toString(ReviewStatus::Accepted));
        QCOMPARE(int(m_store->reviews("silu").value().size()), taskReviews);
        const QString shots = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {  // the README's picture: the queue after a decision, on the REWARD_HACK solution
            for (const SolutionListing& l : listing())
                if (l.latestStatus == "REWARD_HACK")
                    page(b)->openSolution(l.id);
            QVERIFY(b.settle());
            b.window.resize(1500, 900);
            QCoreApplication::processEvents();
            QVERIFY(b.window.grab().save(shots + "/solutions-mode.png"));
        }
        QCOMPARE(SolutionReviewService(m_store->database()).history(passing).value().last().reviewer,
                 QString("tester"));
    }

    void aLinkOpensASolutionAndIsCopiedBack()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        const qint64 id = listing().last().id;
        b.window.openLink(ui::DeepLink::toSolution(id));
        QCOMPARE(toString(b.window.modes().mode()), QString("solutions"));
        QTRY_COMPARE(page(b)->view()->currentSolutionId(), id);
        QVERIFY(b.window.currentLink().has_value());
        QCOMPARE(toString(*b.window.currentLink()), QString("solution/%1").arg(id));
        b.window.findChild<QAction*>("copyViewLink")->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), QString("kmosaic-workbench --open solution/%1").arg(id));
    }

    void aTasksOpenSolutionsShowsItsSolutions()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        const QString task = listing().first().taskId;
        QVERIFY(b.controller.selectTask(task));
        QVERIFY(b.settle());
        auto* open = b.window.findChild<QToolButton*>("openTaskSolutions");
        QTRY_VERIFY(open->isVisible());
        open->click();
        QCOMPARE(toString(b.window.modes().mode()), QString("solutions"));
        QVERIFY(b.settle());
        int expected = 0;
        for (const SolutionListing& l : listing())
            expected += l.taskId == task ? 1 : 0;
        QTRY_COMPARE(queue(b)->model()->rowCount(), expected);
        QVERIFY(expected < int(listing().size()));
    }

    void markAndCompareTwoSolutionsOfATask()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        QVERIFY(QTest::qWaitForWindowActive(&b.window));
        b.window.modes().setMode(ui::Mode::Solutions);
        QVERIFY(b.settle());
        // Two solutions of one task (the demonstrations' runs store one per step with new code).
        QHash<QString, QList<qint64>> byTask;
        for (const SolutionListing& l : listing())
            byTask[l.taskId].append(l.id);
        QString task;
        for (auto it = byTask.cbegin(); it != byTask.cend(); ++it)
            if (it.value().size() >= 2)
                task = it.key();
        QVERIFY(!task.isEmpty());
        const qint64 a = byTask[task][0], other = byTask[task][1];
        page(b)->openSolution(a);
        QTRY_COMPARE(page(b)->view()->currentSolutionId(), a);
        queue(b)->setFocus();
        QTest::keyClick(queue(b), Qt::Key_M);
        QVERIFY(page(b)->findChild<QLabel*>("solutionMarked")->isVisible());
        page(b)->openSolution(other);
        QTRY_COMPARE(page(b)->view()->currentSolutionId(), other);
        queue(b)->setFocus();
        QTest::keyClick(queue(b), Qt::Key_M, Qt::ShiftModifier);
        QTRY_VERIFY(page(b)->comparing());
        const QString summary = page(b)->compareView()->summaryLabel()->text();
        QVERIFY2(summary.contains(QString::number(a)) && summary.contains(QString::number(other)), qPrintable(summary));
        QTest::keyClick(page(b)->compareView(), Qt::Key_Escape);
        QVERIFY(!page(b)->comparing());

        // A solution of another task: refused, with why.
        qint64 elsewhere = 0;
        for (const SolutionListing& l : listing())
            if (l.taskId != task)
                elsewhere = l.id;
        page(b)->openSolution(elsewhere);
        QTRY_COMPARE(page(b)->view()->currentSolutionId(), elsewhere);
        page(b)->compareWithMarked();
        QTRY_VERIFY(b.window.statusBar()->currentMessage().contains("compare two solutions of one task"));
        QVERIFY(!page(b)->comparing());
    }
};

QTEST_MAIN(TestSolutionsMode)
#include "test_solutions_mode.moc"
