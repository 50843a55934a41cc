// The Runs mode of the main window on the shipped demonstrations, driven by keyboard as a curator would: Ctrl+2
// shows the runs, the task review's keys are off there (an 'a' accepts no task), Down opens the next run, Right and
// End walk its steps, a link opens a run at a step, M then Shift+M compares two runs, and a task's "Open runs"
// button shows that task's runs. Ctrl+1 brings the task docks back as they were.
#include "WorkbenchFixture.h"
#include "controller/ReplayController.h"
#include "replay/CompareView.h"
#include "replay/StepView.h"
#include "replay/TrajectoryView.h"
#include "services/TrajectoryTransfer.h"
#include "store/TrajectoryStore.h"
#include "views/RunsPage.h"
#include "views/RunsView.h"

#include <QClipboard>
#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolButton>

using namespace km;

class TestRunsMode : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;
    QList<AgentRun> m_runs;  // newest first

    static void key(QWidget* w, int k, Qt::KeyboardModifiers mods = Qt::NoModifier)
    {
        QTest::keyClick(w, Qt::Key(k), mods);
    }
    static ui::RunsPage* page(test::Workbench& b) { return b.window.runsPage(); }
    static replay::TrajectoryView* trajectory(test::Workbench& b) { return page(b)->trajectory(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_store = test::seededStore(m_dir);
        QVERIFY(m_store);
        auto seeded = seedDemonstrationsIfNoRuns(m_store->database(), "tester");
        QVERIFY(seeded.ok() && seeded.value() && seeded.value()->count(BundleRunOutcome::Kind::Imported) == 6);
        m_runs = TrajectoryStore(m_store->database()).runs().value();
        m_settings = std::make_unique<QSettings>(m_dir.filePath("settings.ini"), QSettings::IniFormat);
    }

    void keyboardWalksRunsAndSteps()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        QVERIFY(QTest::qWaitForWindowActive(&b.window));
        QVERIFY(b.controller.selectTask("silu"));
        QVERIFY(b.settle());
        auto* reviewDock = b.window.findChild<QDockWidget*>("reviewDock");
        QVERIFY(reviewDock->isVisible());

        key(b.window.focusWidget(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(toString(b.window.modes().mode()), QString("runs"));
        QVERIFY(!reviewDock->isVisible());
        QVERIFY(!b.window.findChild<QAction*>("review-accept")->isEnabled());
        ui::RunsView* runs = page(b)->runsView();
        QTRY_COMPARE(runs->counts().visible, 6);
        QCOMPARE(runs->findChild<QLabel*>("runCount")->text(), QString("6 of 6 runs"));

        // The task review's 'a' does nothing here: no decision on the current task.
        const int reviewsBefore = int(m_store->reviews("silu").value().size());
        runs->table()->setFocus();
        key(runs->table(), Qt::Key_A);
        QVERIFY(b.settle());
        QCOMPARE(int(m_store->reviews("silu").value().size()), reviewsBefore);

        // Down opens a run; its steps come, and the first is shown.
        key(runs->table(), Qt::Key_Down);
        QTRY_VERIFY(runs->currentRunId() != 0);
        const qint64 open = runs->currentRunId();
        QTRY_VERIFY(page(b)->controller()->currentRun() && page(b)->controller()->currentRun()->id == open);
        QTRY_VERIFY(page(b)->controller()->currentStep().has_value());
        QCOMPARE(trajectory(b)->currentIdx(), 0);
        const int steps = int(page(b)->controller()->steps().size());
        QVERIFY(steps >= 2);

        // The replay keys work from the runs list: Right is the next step, End the last, Home the first.
        key(runs->table(), Qt::Key_Right);
        QTRY_COMPARE(page(b)->controller()->currentStep()->step.idx, 1);
        key(runs->table(), Qt::Key_End);
        QTRY_COMPARE(page(b)->controller()->currentStep()->step.idx, steps - 1);
        key(runs->table(), Qt::Key_Home);
        QTRY_COMPARE(page(b)->controller()->currentStep()->step.idx, 0);

        // ']' is the next run in the list.
        key(runs->table(), Qt::Key_BracketRight);
        QTRY_VERIFY(runs->currentRunId() != open);
        QTRY_COMPARE(page(b)->controller()->currentRun()->id, runs->currentRunId());

        // Ctrl+1: the task docks are back, the review keys too.
        key(b.window.focusWidget(), Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(toString(b.window.modes().mode()), QString("tasks"));
        QVERIFY(reviewDock->isVisible());
        QVERIFY(b.window.findChild<QAction*>("review-accept")->isEnabled());
    }

    void aLinkOpensARunAtAStepAndIsCopiedBack()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        const AgentRun& run = m_runs.first();
        const QList<TrajectoryStep> steps = TrajectoryStore(m_store->database()).steps(run.id).value();
        QVERIFY(steps.size() >= 2);
        auto link = ui::parseDeepLink(QString("run/%1/step/2").arg(run.id));
        QVERIFY(link.ok());
        b.window.openLink(link.value());
        QCOMPARE(toString(b.window.modes().mode()), QString("runs"));
        QTRY_VERIFY(page(b)->controller()->currentStep() && page(b)->controller()->currentStep()->step.idx == 1);
        QCOMPARE(page(b)->controller()->currentStep()->step.prompt, steps[1].prompt);
        QCOMPARE(page(b)->runsView()->currentRunId(), run.id);
        QVERIFY(b.window.currentLink().has_value());
        QCOMPARE(toString(*b.window.currentLink()), QString("run/%1/step/2").arg(run.id));
        b.window.findChild<QAction*>("copyViewLink")->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), QString("kmosaic-workbench --open run/%1/step/2").arg(run.id));

        // A run this store does not have: said in the status bar, the view stays.
        b.window.openLink(ui::DeepLink::toRun(999999));
        QTRY_VERIFY(b.window.statusBar()->currentMessage().contains("No run 999999"));
    }

    void markAndCompareTwoRuns()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        QVERIFY(QTest::qWaitForWindowActive(&b.window));
        b.window.modes().setMode(ui::Mode::Runs);
        ui::RunsView* runs = page(b)->runsView();
        QTRY_COMPARE(runs->counts().visible, 6);
        QVERIFY(runs->selectRun(m_runs[0].id));
        runs->table()->setFocus();
        key(runs->table(), Qt::Key_M);
        QVERIFY(page(b)->findChild<QLabel*>("compareMarked")->isVisible());
        QVERIFY(runs->selectRun(m_runs[1].id));
        key(runs->table(), Qt::Key_M, Qt::ShiftModifier);
        QTRY_VERIFY(page(b)->comparing());
        auto* table = page(b)->compareView()->stepTable();
        QVERIFY(table->rowCount() >= 2);
        QVERIFY(page(b)->compareView()->summaryLabel()->text().contains(QString::number(m_runs[0].id)));
        key(page(b)->compareView(), Qt::Key_Escape);
        QVERIFY(!page(b)->comparing());
    }

    // The README's pictures (with KMOSAIC_SCREENSHOT_DIR): the runs view with a step's compiler diagnostic at its
    // line, the repair's diff against it, and the verdict of the optimisation.
    void screenshots()
    {
        const QString shots = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR");
        if (shots.isEmpty())
            QSKIP("KMOSAIC_SCREENSHOT_DIR is not set");
        test::Workbench b(*m_store, *m_settings);
        b.window.resize(1500, 900);
        b.window.show();
        qint64 gelu = 0;
        for (const AgentRun& r : m_runs)
            if (r.taskId == "gelu-tanh")
                gelu = r.id;
        QVERIFY(gelu != 0);
        const QList<std::pair<int, replay::StepView::Tab>> views{
            {0, replay::StepView::CodeTab}, {1, replay::StepView::DiffTab}, {2, replay::StepView::VerdictTab}};
        const QStringList names{"replay-diagnostics.png", "replay-diff.png", "replay-verdict.png"};
        for (int i = 0; i < views.size(); ++i) {
            b.window.openLink(ui::DeepLink::toRun(gelu, views[i].first));
            QTRY_VERIFY(page(b)->controller()->currentStep() &&
                        page(b)->controller()->currentStep()->step.idx == views[i].first);
            trajectory(b)->stepView()->setCurrentIndex(views[i].second);
            QVERIFY(b.settle());
            QCoreApplication::processEvents();
            QVERIFY(b.window.grab().save(shots + "/" + names[i]));
        }
    }

    void aTasksOpenRunsButtonShowsItsRuns()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        const QString task = m_runs.first().taskId;
        QVERIFY(b.controller.selectTask(task));
        QVERIFY(b.settle());
        auto* open = b.window.findChild<QToolButton*>("openTaskRuns");
        QTRY_VERIFY(open->isVisible());
        open->click();
        QCOMPARE(toString(b.window.modes().mode()), QString("runs"));
        ui::RunsView* runs = page(b)->runsView();
        const int expected = int(std::count_if(m_runs.begin(), m_runs.end(),
                                               [&task](const AgentRun& r) { return r.taskId.contains(task); }));
        QTRY_COMPARE(runs->counts().visible, expected);
        QVERIFY(expected < 6);
    }
};

QTEST_MAIN(TestRunsMode)
#include "test_runs_mode.moc"
