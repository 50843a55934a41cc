// The runs controller over a real ServiceHost (store file, harness worker on the CPU: label python) with replies
// from fake_llm_server.py on loopback: two runs launched, their steps recorded, one cancelled mid-reply (it ends
// cancelled) and resumed (it goes on to PASSED); runs against a dead endpoint and a refused key end with their
// error in plain words in errorOf(runId).
#include "../../common/FakeLlmServer.h"
#include "../../common/FakeProvider.h"
#include "../../common/LeakyReluReplies.h"
#include "controller/AgentRunsController.h"
#include "curate/TaskFolder.h"
#include "services/ServiceHost.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;
using namespace km::ui;
using km::test::deadPort;
using km::test::FakeLlmServer;
using km::test::fakeProvider;

namespace {
constexpr int kWaitMs = 300000;

QString passing()
{
    return test::leakyReluPassingReply();
}
QString wrong()
{
    return test::leakyReluWrongReply();
}
QJsonObject reply(const QString& content)
{
    return {{"kind", "reply"}, {"content", content}, {"chunk_chars", 400}, {"chunk_delay_ms", 0}};
}

LaunchSettings cpuSettings(const QString& providerName)
{
    LaunchSettings s;
    s.provider = providerName;
    s.budgets.run.turns = 2;
    s.device = QStringLiteral("cpu");
    s.seeds = 1;
    return s;
}
}  // namespace

class TestAgentRunsController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString path = m_dir.filePath("store.sqlite");
        auto store = TaskStore::open(path);
        QVERIFY2(store, store ? "" : qPrintable(store.error().message));
        m_store = std::move(store).value();
        QList<ImportIssue> issues;
        const auto task = readTaskFolder(QStringLiteral(KMOSAIC_TASKS_DIR "/leaky-relu"), &issues);
        QVERIFY(task);
        m_task = *task;
        QVERIFY(m_store->upsertTask(m_task, QStringLiteral("t"), QStringLiteral("test")));
        ExecutorSettings cpu;
        cpu.device = QStringLiteral("cpu");
        cpu.singleWorker = true;
        m_host =
            std::make_unique<ServiceHost>(ServiceHost::Config{path, cpu, QStringLiteral("ana"), {}, harnessLaunch({})});
        QSignalSpy ready(m_host.get(), &ServiceHost::ready);
        m_host->start();
        QVERIFY(ready.wait(30000));
        QVERIFY2(ready.first().at(0).toBool(), qPrintable(ready.first().at(1).toString()));
    }

    void launchCancelResume()
    {
        // One run at a time, so the script is consumed in order: run 1 wrong then passing; run 2 stalls (cancelled
        // there), then passes twice once resumed.
        FakeLlmServer server(
            QJsonArray{reply(wrong()), reply(passing()),
                       QJsonObject{{"kind", "stall"}, {"after_chunks", 1}, {"seconds", 120}, {"content", wrong()}},
                       reply(passing()), reply(passing())});
        QVERIFY(server.started());
        AgentRunsController c(*m_host);
        c.setProviders({fakeProvider(QStringLiteral("fake"), server.baseUrl())});
        QSignalSpy started(&c, &AgentRunsController::runStarted);
        QSignalSpy steps(&c, &AgentRunsController::stepRecorded);
        QSignalSpy ended(&c, &AgentRunsController::runEnded);
        QSignalSpy progress(&c, &AgentRunsController::progress);
        QSignalSpy failed(&c, &AgentRunsController::failed);
        QVERIFY(c.launch({m_task, m_task}, cpuSettings(QStringLiteral("fake"))));
        QCOMPARE(c.runsTotal(), 2);
        QCOMPARE(c.runsEnded(), 0);
        QCOMPARE(c.etaSeconds(), -1.0);  // nothing finished yet

        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const qint64 first = started.first().at(0).toLongLong();
        QCOMPARE(started.first().at(1).toString(), m_task.id);
        QCOMPARE(ended.first().at(0).toLongLong(), first);
        QVERIFY(ended.first().at(1).toString().isEmpty());
        QCOMPARE(steps.size(), 2);
        QCOMPARE(steps[0].at(2).toString(), QStringLiteral("INCORRECT_NUMERICAL"));
        QCOMPARE(steps[1].at(2).toString(), QStringLiteral("PASSED"));
        QCOMPARE(c.runsEnded(), 1);
        QVERIFY(c.etaSeconds() >= 0);  // from the finished run's duration
        QCOMPARE(progress.last().at(0).toInt(), 1);
        QCOMPARE(progress.last().at(1).toInt(), 2);

        // The second run waits in its stalled reply: cancel it there.
        QTRY_COMPARE_WITH_TIMEOUT(started.size(), 2, kWaitMs);
        const qint64 second = started[1].at(0).toLongLong();
        QVERIFY(second != first);
        QVERIFY(c.isRunning(second));
        QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 3, kWaitMs);
        c.cancel(second);
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 2, kWaitMs);
        QCOMPARE(ended[1].at(0).toLongLong(), second);
        QVERIFY(ended[1].at(1).toString().isEmpty());  // cancelled is a state, not an error
        TrajectoryStore runs(m_store->database());
        QCOMPARE(toString(runs.run(second).value()->state), toString(RunState::Cancelled));
        QCOMPARE(toString(runs.run(first).value()->state), toString(RunState::Completed));
        QCOMPARE(progress.last().at(0).toInt(), 2);
        QCOMPARE(progress.last().at(1).toInt(), 2);

        // Resumed, it goes on with the source it recorded.
        QVERIFY(c.resume(second));
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 3, kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(ended[2].at(0).toLongLong(), second);
        QVERIFY2(ended[2].at(1).toString().isEmpty(), qPrintable(ended[2].at(1).toString()));
        const auto resumed = runs.run(second).value();
        QCOMPARE(toString(resumed->state), toString(RunState::Completed));
        const auto stored = runs.steps(second).value();
        QVERIFY(!stored.isEmpty());
        QCOMPARE(stored.first().status, QStringLiteral("PASSED"));
        QCOMPARE(server.requests().size(), 5);
        QCOMPARE(c.runs(), (QList<qint64>{first, second}));
    }

    // Cancel all: the run in its reply ends cancelled, the one not started leaves the batch, which then is done.
    void cancelAllEndsTheBatch()
    {
        FakeLlmServer server(
            QJsonArray{QJsonObject{{"kind", "stall"}, {"after_chunks", 1}, {"seconds", 120}, {"content", wrong()}}});
        QVERIFY(server.started());
        AgentRunsController c(*m_host);
        c.setProviders({fakeProvider(QStringLiteral("fake"), server.baseUrl())});
        QSignalSpy started(&c, &AgentRunsController::runStarted);
        QSignalSpy ended(&c, &AgentRunsController::runEnded);
        QSignalSpy progress(&c, &AgentRunsController::progress);
        QVERIFY(c.launch({m_task, m_task}, cpuSettings(QStringLiteral("fake"))));
        QTRY_COMPARE_WITH_TIMEOUT(started.size(), 1, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 1, kWaitMs);
        QCOMPARE(c.runsTotal(), 2);
        c.cancelAll();
        QTRY_COMPARE_WITH_TIMEOUT(c.runsTotal(), 1, kWaitMs);
        QCOMPARE(ended.size(), 1);
        QCOMPARE(started.size(), 1);
        QCOMPARE(c.runsEnded(), 1);
        QCOMPARE(progress.last().at(0).toInt(), 1);
        QCOMPARE(progress.last().at(1).toInt(), 1);
        const qint64 id = started.first().at(0).toLongLong();
        QCOMPARE(toString(TrajectoryStore(m_store->database()).run(id).value()->state), toString(RunState::Cancelled));
        QVERIFY(c.errorOf(id).isEmpty());
    }

    // Fork from step 1: the new run takes over the old run's first step (its verdict shared), asks the endpoint
    // for step 2 only, and records where it came from; a step the run does not have is refused with why.
    void forkFromAStepAsksOnlyForWhatFollows()
    {
        FakeLlmServer server(QJsonArray{reply(wrong()), reply(passing()), reply(passing())});
        QVERIFY(server.started());
        AgentRunsController c(*m_host);
        c.setProviders({fakeProvider(QStringLiteral("fake"), server.baseUrl())});
        QSignalSpy started(&c, &AgentRunsController::runStarted);
        QSignalSpy ended(&c, &AgentRunsController::runEnded);
        LaunchSettings settings = cpuSettings(QStringLiteral("fake"));
        settings.budgets.targetSpeedup = 0.01;  // the first PASSED step ends a run
        QVERIFY(c.launch({m_task}, settings));
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, kWaitMs);
        const qint64 from = started.first().at(0).toLongLong();
        TrajectoryStore runs(m_store->database());
        const auto old = runs.steps(from).value();
        QCOMPARE(old.size(), 2);

        QVERIFY(c.fork(from, 1, m_task, settings));
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 2, kWaitMs);
        const qint64 forked = started.last().at(0).toLongLong();
        QVERIFY(forked != from);
        QVERIFY2(ended.last().at(1).toString().isEmpty(), qPrintable(ended.last().at(1).toString()));
        QCOMPARE(server.requests().size(), 3);  // two for the first run, one for the fork's step 2
        const auto steps = runs.steps(forked).value();
        QCOMPARE(steps.size(), 2);
        QCOMPARE(steps[0].verdictId, old[0].verdictId);
        QCOMPARE(steps[0].status, QStringLiteral("INCORRECT_NUMERICAL"));
        QCOMPARE(steps[1].status, QStringLiteral("PASSED"));
        const auto origin = forkOriginOf(*runs.run(forked).value());
        QVERIFY(origin);
        QCOMPARE(origin->runId, from);
        QCOMPARE(origin->steps, 1);

        QVERIFY(c.fork(from, 7, m_task, settings));  // refused by the store once the job starts
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 3, kWaitMs);
        QVERIFY2(ended.last().at(1).toString().contains(QLatin1String("cannot be forked from step 7")),
                 qPrintable(ended.last().at(1).toString()));
        QCOMPARE(server.requests().size(), 3);
    }

    void deadEndpointAndRefusedKeyInErrorOf()
    {
        FakeLlmServer refusing(QJsonArray{QJsonObject{{"kind", "status"}, {"code", 401}}});
        QVERIFY(refusing.started());
        AgentRunsController c(*m_host);
        c.setProviders({fakeProvider(QStringLiteral("dead"), QStringLiteral("http://127.0.0.1:%1/v1").arg(deadPort())),
                        fakeProvider(QStringLiteral("refusing"), refusing.baseUrl())});
        QSignalSpy started(&c, &AgentRunsController::runStarted);
        QSignalSpy ended(&c, &AgentRunsController::runEnded);
        QVERIFY(c.launch({m_task}, cpuSettings(QStringLiteral("dead"))));
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, kWaitMs);
        const qint64 dead = ended[0].at(0).toLongLong();
        QVERIFY2(c.errorOf(dead).startsWith(QLatin1String("Nothing answers at the endpoint")),
                 qPrintable(c.errorOf(dead)));
        QCOMPARE(ended[0].at(1).toString(), c.errorOf(dead));

        QVERIFY(c.launch({m_task}, cpuSettings(QStringLiteral("refusing"))));
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 2, kWaitMs);
        const qint64 refused = ended[1].at(0).toLongLong();
        QVERIFY(refused != dead);
        QVERIFY2(c.errorOf(refused).startsWith(QLatin1String("The endpoint refused the API key (HTTP 401")),
                 qPrintable(c.errorOf(refused)));
        QCOMPARE(started.size(), 2);

        // Refused at once, with why: an unknown provider.
        QSignalSpy failed(&c, &AgentRunsController::failed);
        QVERIFY(!c.launch({m_task}, cpuSettings(QStringLiteral("nowhere"))));
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed.first().first().toString().contains(QLatin1String("\"nowhere\"")));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<ServiceHost> m_host;
    Task m_task;
};

QTEST_MAIN(TestAgentRunsController)
#include "test_agent_runs_controller.moc"
