// Runs recorded by real agent runs, replayed in the workbench (needs Debian's python3-torch: label python):
// - a scripted run (the caller writes each reply through a ReplyChannel; the real harness verifies on the CPU) whose
//   steps are a syntax error (COMPILE_ERROR at forward's line), a repair that passes and an optimisation that starts a
//   thread (REWARD_HACK): the runs view shows it while it grows, without a reload, and the replay puts the error's
//   marker on that line, the hack's finding in the verdict and the repair's diff against the failed step;
// - a `kmosaic agent run` killed while it waits for its reply: the workbench shows it interrupted.
#include "../common/LeakyReluReplies.h"
#include "WorkbenchFixture.h"
#include "agent/Guidance.h"
#include "agent/PromptTemplate.h"
#include "controller/ReplayController.h"
#include "replay/CodePane.h"
#include "replay/DiffView.h"
#include "replay/StepView.h"
#include "replay/TrajectoryView.h"
#include "services/AgentLaunchService.h"
#include "services/VerificationService.h"
#include "store/TrajectoryStore.h"
#include "verify/LocalExecutor.h"
#include "views/RunsPage.h"
#include "views/RunsView.h"

#include <QProcess>
#include <QTextBrowser>
#include <csignal>

using namespace km;

namespace {
QStringList scriptedReplies()
{
    return {
        test::leakyReluReply("    def forward(self, x)\n"),  // the line lacks its ':'
        test::leakyReluReply("    def forward(self, x):\n"),
        test::leakyReluReply("    def forward(self, x):\n", "import threading\n"),
    };
}
}  // namespace

class TestRunsLive : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;

private Q_SLOTS:
    void initTestCase() { QVERIFY(test::openSeeded(m_dir, m_store, m_settings)); }

    void aScriptedRunGrowsInTheRunsViewAndReplays()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        b.window.modes().setMode(ui::Mode::Runs);
        ui::RunsPage* page = b.window.runsPage();

        const auto task = m_store->task("leaky-relu").value();
        QVERIFY(task);
        store::Database& db = m_store->database();
        VerifyOptions cpu;
        cpu.device = "cpu";
        cpu.timeoutS = 120;
        cpu.buildCache = QStringLiteral(KMOSAIC_VERIFY_BUILD_CACHE);
        VerificationService verification(std::make_unique<LocalExecutor>(harnessLaunch({})), db, "ana");
        AgentLaunchService launcher(verification, db, "ana");
        auto channel = std::make_shared<ReplyChannel>();
        const QStringList replies = scriptedReplies();
        // Before each reply, the runs view shows the run as it is so far, running, without a reload.
        QList<bool> shownLive;
        connect(channel.get(), &ReplyChannel::replyWanted, this, [&](int step, const QString&) {
            const auto grown = [page, step] {
                const auto& runs = page->controller()->runs();
                return !runs.isEmpty() && runs.first().state == RunState::Running && runs.first().steps == step;
            };
            QTRY_VERIFY_WITH_TIMEOUT(grown(), 10000);
            shownLive << grown();
            QVERIFY(channel->provide(step, replies.value(step, replies.last())));
        });
        LaunchSpec spec;
        spec.jobs = {AgentJob{*task, 0}};
        spec.setup.prompts = PromptLibrary::loadDefault().value();
        spec.setup.guidance = GuidanceLibrary::loadDefault().value();
        spec.setup.verify = cpu;
        spec.setup.budgets.run.turns = 3;
        spec.source.kind = ReplySourceSpec::Kind::Caller;
        spec.source.channel = channel;
        auto outcomes = launcher.launchAndWait(spec);
        QVERIFY2(outcomes, outcomes ? "" : qPrintable(outcomes.error().message));
        QCOMPARE(outcomes->size(), 1);
        const qint64 runId = outcomes->first().runId;
        QVERIFY(runId > 0);
        const QList<TrajectoryStep> stored = TrajectoryStore(db).steps(runId).value();
        QCOMPARE(stored.size(), 3);
        QCOMPARE(stored[0].status, QString("COMPILE_ERROR"));
        QCOMPARE(stored[1].status, QString("PASSED"));
        QCOMPARE(stored[2].status, QString("REWARD_HACK"));

        QCOMPARE(shownLive, (QList<bool>{true, true, true}));
        ui::RunsView* runs = page->runsView();
        QTRY_VERIFY(!page->controller()->runs().isEmpty() && page->controller()->runs().first().steps == 3);
        QCOMPARE(page->controller()->runs().first().bestStatus, QString("PASSED"));

        // Open it from the list by keyboard and walk its steps.
        QVERIFY(runs->selectRun(runId));
        runs->table()->setFocus();
        replay::TrajectoryView* view = page->trajectory();
        QTRY_VERIFY(page->controller()->currentStep() && page->controller()->currentStep()->step.runId == runId);
        QTRY_COMPARE(view->currentIdx(), 0);
        replay::CodePane* code = view->stepView()->code();
        QTRY_VERIFY(code->markedLines().contains(stored[0].code.section("def forward", 0, 0).count('\n') + 1));

        QTest::keyClick(runs->table(), Qt::Key_Right);
        QTRY_COMPARE(page->controller()->currentStep()->step.idx, 1);
        replay::DiffView* diff = view->stepView()->diffView();
        QTRY_VERIFY(!diff->findChild<QWidget*>("diffNoChanges")->isVisible() ||
                    !diff->findChild<QWidget*>("diffNoChanges")->isVisibleTo(diff));

        QTest::keyClick(runs->table(), Qt::Key_End);
        QTRY_COMPARE(page->controller()->currentStep()->step.idx, 2);
        const QString verdict = view->stepView()->verdictBrowser()->toPlainText();
        QVERIFY2(verdict.contains("REWARD_HACK") && verdict.contains("static.threads"), qPrintable(verdict.left(600)));
    }

    void aKilledRunShowsInterrupted()
    {
        QProcess agent;
        agent.setProcessChannelMode(QProcess::MergedChannels);
        agent.start(QStringLiteral(KMOSAIC_CLI), {"--db", m_store->path(), "agent", "run", "--task", "leaky-relu",
                                                  "--manual-cmd", "sleep 30", "--device", "cpu"});
        QVERIFY(agent.waitForStarted());
        test::Workbench b(*m_store, *m_settings);
        b.window.modes().setMode(ui::Mode::Runs);
        ui::RunsPage* page = b.window.runsPage();
        auto running = [page] {
            for (const RunSummary& r : page->controller()->runs())
                if (r.state == RunState::Running)
                    return r.id;
            return qint64(0);
        };
        QTRY_VERIFY_WITH_TIMEOUT(running() != 0, 30000);  // the run row is written before the first reply is asked
        const qint64 id = running();
        ::kill(pid_t(agent.processId()), SIGKILL);
        QVERIFY(agent.waitForFinished());
        b.window.reload();
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(page->controller()->runs().begin(), page->controller()->runs().end(),
                        [id](const RunSummary& r) { return r.id == id && r.state == RunState::Interrupted; }),
            20000);
    }
};

QTEST_MAIN(TestRunsLive)
#include "test_runs_live.moc"
