// Agent runs from the main window's Run menu: with no agent services every action says so (no dialog, nothing
// started); with them, Start Agent Runs on Selected Tasks opens the launch dialog over the table's selection and
// Visible Tasks over the filtered list, each saying how many runs will start; Cancel Open Run without an open run
// says what to do; Fork Open Run From This Step opens it for the open run's task, naming the run and the steps it
// keeps, and without an open run says what to do.
#include "WorkbenchFixture.h"
#include "agent/LaunchDialog.h"
#include "controller/ReplayController.h"
#include "services/ServiceHost.h"
#include "services/TrajectoryTransfer.h"
#include "store/TrajectoryStore.h"
#include "views/AgentLaunches.h"
#include "views/RunsPage.h"

#include <QStatusBar>

using namespace km;

class TestAgentLaunches : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;

private Q_SLOTS:
    void initTestCase() { QVERIFY(test::openSeeded(m_dir, m_store, m_settings)); }

    void withoutServicesNothingStarts()
    {
        test::Workbench b(*m_store, *m_settings);  // no ServiceHost
        b.window.show();
        b.window.findChild<QAction*>("launchVisible")->trigger();
        QTRY_VERIFY(b.window.statusBar()->currentMessage().contains("agent services are not running"));
        QVERIFY(!b.window.findChild<ui::LaunchDialog*>("launchDialog"));
    }

    void theDialogOpensOverSelectedOrVisibleTasks()
    {
        auto services = test::cpuServices(m_store->path());
        QVERIFY(services);
        test::Workbench b(*m_store, *m_settings, "ana", services.get());
        b.window.show();
        QVERIFY(b.settle());

        QVERIFY(b.controller.selectTask("leaky-relu"));
        QVERIFY(b.settle());
        QCOMPARE(b.window.selectedTaskIds(), QStringList{"leaky-relu"});
        b.window.findChild<QAction*>("launchSelected")->trigger();
        ui::LaunchDialog* d = test::visibleChild<ui::LaunchDialog>(b.window, "launchDialog");
        QVERIFY(d);
        QVERIFY2(d->summaryText().startsWith("1 run will start"), qPrintable(d->summaryText()));
        d->setObjectName("seen");
        d->reject();

        b.window.setSearchText("softmax");
        QTRY_VERIFY(b.controller.visibleTaskIds().size() >= 2);
        const int visible = int(b.controller.visibleTaskIds().size());
        b.window.findChild<QAction*>("launchVisible")->trigger();
        d = test::visibleChild<ui::LaunchDialog>(b.window, "launchDialog");
        QVERIFY(d);
        QVERIFY2(d->summaryText().startsWith(QString("%1 runs will start").arg(visible)), qPrintable(d->summaryText()));
        d->reject();

        b.window.findChild<QAction*>("cancelOpenRun")->trigger();
        QTRY_VERIFY(b.window.statusBar()->currentMessage().contains("Open a run to cancel it"));
        b.window.findChild<QAction*>("forkOpenRun")->trigger();
        QTRY_VERIFY(b.window.statusBar()->currentMessage().contains("Open a run and pick the step to fork it from"));
    }

    void forkOpensTheDialogForTheOpenRunsTask()
    {
        auto seeded = seedDemonstrationsIfNoRuns(m_store->database(), "tester");
        QVERIFY(seeded.ok());
        qint64 runId = 0;
        for (const AgentRun& r : TrajectoryStore(m_store->database()).runs().value())
            if (TrajectoryStore(m_store->database()).steps(r.id).value().size() >= 2)
                runId = r.id;
        QVERIFY(runId > 0);
        test::ServedWorkbench served(*m_store, *m_settings, "ana");
        QVERIFY(served.bench);
        test::Workbench& b = *served.bench;
        ui::ReplayController* replay = b.window.runsPage()->controller();
        replay->openRun(runId, 1);
        QTRY_VERIFY_WITH_TIMEOUT(replay->currentStep() && replay->currentStep()->step.idx == 1, 20000);
        b.window.findChild<QAction*>("forkOpenRun")->trigger();
        ui::LaunchDialog* d = test::visibleChild<ui::LaunchDialog>(b.window, "launchDialog");
        QVERIFY(d);
        QCOMPARE(d->windowTitle(), QString("Fork run %1 from step 2").arg(runId));
        QVERIFY2(d->summaryText().startsWith(QString("1 run will start from steps 1-2 of run %1").arg(runId)),
                 qPrintable(d->summaryText()));
        const QString shots = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR");
        if (!shots.isEmpty())
            QVERIFY(d->grab().save(shots + "/launch-dialog.png"));
        d->reject();
        QCOMPARE(int(TrajectoryStore(m_store->database()).runs().value().size()), 6);  // rejected: nothing started
    }
};

QTEST_MAIN(TestAgentLaunches)
#include "test_agent_launches.moc"
