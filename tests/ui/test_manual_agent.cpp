// The manual agent in the workbench, with the real services (ServiceHost, the CPU harness; label python): Start
// Manual Run on a task shows the Manual Agent panel with the implement prompt; a reply with a syntax error, typed in
// the editor and submitted with Ctrl+Return, is verified and recorded as COMPILE_ERROR, and the repair prompt comes;
// a correct reply passes; the replay follows the run step by step; Stop ends it cancelled (resumable). Submitting
// with no step waiting, or an empty reply, says why and records nothing.
#include "../common/LeakyReluReplies.h"
#include "WorkbenchFixture.h"
#include "controller/ManualRunController.h"
#include "controller/ReplayController.h"
#include "services/ServiceHost.h"
#include "store/TrajectoryStore.h"
#include "views/ManualAgentPanel.h"
#include "views/Qsci.h"
#include "views/RunsPage.h"

#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>

using namespace km;

class TestManualAgent : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;

private Q_SLOTS:
    void initTestCase() { QVERIFY(test::openSeeded(m_dir, m_store, m_settings)); }

    void aManualRunIsWrittenInTheEditorAndPasses()
    {
        auto services = test::cpuServices(m_store->path());
        QVERIFY(services);
        test::Workbench b(*m_store, *m_settings, "ana", services.get());
        b.window.show();
        QVERIFY(QTest::qWaitForWindowActive(&b.window));
        QVERIFY(b.settle());
        ui::ManualRunController* manual = b.window.manualRuns();
        VerifyOptions options;
        options.device = "cpu";
        options.timeoutS = 120;
        options.buildCache = QStringLiteral(KMOSAIC_VERIFY_BUILD_CACHE);
        manual->setVerifyOptions(options);
        manual->setMaxTurns(4);

        // Nothing waits yet: a submit says so.
        QSignalSpy failed(manual, &ui::ManualRunController::failed);
        QVERIFY(!manual->submit("text"));
        QCOMPARE(failed.takeFirst().at(0).toString(), QString("No step is waiting for a reply"));

        QVERIFY(b.controller.selectTask("leaky-relu"));
        QVERIFY(b.settle());
        QSignalSpy prompts(manual, &ui::ManualRunController::promptReady);
        QSignalSpy steps(manual, &ui::ManualRunController::stepRecorded);
        QTest::keyClick(b.window.focusWidget(), Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(prompts.size(), 1, 30000);
        QTRY_COMPARE(toString(b.window.modes().mode()), QString("runs"));
        auto* dock = b.window.findChild<QDockWidget*>("manualAgentDock");
        QVERIFY(dock->isVisible());
        ui::ManualAgentPanel* panel = b.window.manualPanel();
        QVERIFY(panel->findChild<QTextBrowser*>("manualPrompt")->toPlainText().contains("ModelNew"));
        QTRY_VERIFY(manual->runId() > 0);
        const qint64 runId = manual->runId();
        QTRY_VERIFY(panel->stateText().startsWith(QString("Run %1 of leaky-relu · step 1").arg(runId)));
        // The runs view opened the new run, though its list did not have it yet when it started.
        QTRY_VERIFY_WITH_TIMEOUT(b.window.runsPage()->controller()->currentRun() &&
                                     b.window.runsPage()->controller()->currentRun()->id == runId,
                                 20000);

        // An empty reply is refused and nothing is recorded.
        panel->editor()->setFocus();
        QTest::keyClick(panel->editor(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(failed.size() == 1 && failed.takeFirst().at(0).toString().contains("empty"));

        // A syntax error: recorded as COMPILE_ERROR, and the repair prompt comes.
        panel->editor()->setText(test::leakyReluReply("    def forward(self, x)\n"));
        QTest::keyClick(panel->editor(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_COMPARE_WITH_TIMEOUT(steps.size(), 1, 120000);
        QCOMPARE(steps.first().at(1).toString(), QString("COMPILE_ERROR"));
        QTRY_COMPARE_WITH_TIMEOUT(prompts.size(), 2, 60000);  // the repair prompt
        QVERIFY(panel->findChild<QLabel*>("manualLastStep")->text().startsWith("Step 1: COMPILE_ERROR"));
        QVERIFY2(panel->stateText().contains("step 2"), qPrintable(panel->stateText()));

        // The correct reply passes.
        panel->editor()->setText(test::leakyReluReply("    def forward(self, x):\n"));
        panel->findChild<QPushButton*>("submitReply")->click();
        QTRY_COMPARE_WITH_TIMEOUT(steps.size(), 2, 120000);
        QCOMPARE(steps.last().at(1).toString(), QString("PASSED"));
        QTRY_COMPARE_WITH_TIMEOUT(prompts.size(), 3, 60000);  // the optimise prompt

        // The replay followed the run: it is open at its newest step.
        ui::ReplayController* replay = b.window.runsPage()->controller();
        QTRY_VERIFY_WITH_TIMEOUT(replay->currentStep() && replay->currentStep()->step.runId == runId &&
                                     replay->currentStep()->step.idx == 1,
                                 20000);
        if (const QString shots = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR"); !shots.isEmpty()) {
            b.window.resize(1500, 900);  // the README's picture of a live run: the replay beside the manual agent
            QTest::qWait(500);
            QVERIFY(b.window.grab().save(shots + "/live-manual-run.png"));
        }

        // Stop: the run ends cancelled, with its two steps stored.
        QSignalSpy ended(manual, &ui::ManualRunController::ended);
        panel->findChild<QPushButton*>("stopManualRun")->click();
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 60000);
        QCOMPARE(ended.first().at(0).toLongLong(), runId);
        QCOMPARE(ended.first().at(1).toString(), QString("cancelled"));
        QVERIFY(!manual->active());
        const auto stored = TrajectoryStore(m_store->database()).steps(runId).value();
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[0].status, QString("COMPILE_ERROR"));
        QCOMPARE(stored[1].status, QString("PASSED"));
        QCOMPARE(toString(TrajectoryStore(m_store->database()).run(runId).value()->state), QString("cancelled"));
    }
};

QTEST_MAIN(TestManualAgent)
#include "test_manual_agent.moc"
