// The verification and agent launch services with real harness workers on the CPU (Debian's python3-torch) and a
// real store file: a verdict stored with its solution in one transaction, a request that may not be stored, a
// store that refuses (nothing half-written), cancel, an executor that cannot be built; and an agent run whose
// replies the caller writes through a ReplyChannel, recorded exactly like a model's.
#include "../common/HonestLeakyRelu.h"
#include "curate/TaskFolder.h"
#include "services/AgentLaunchService.h"
#include "services/VerificationPlaces.h"
#include "services/VerificationService.h"
#include "store/Database.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"
#include "verify/LocalExecutor.h"
#include "verify/PoolProtocol.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;

namespace {
constexpr int kWaitMs = 300000;

const QString kPassing = km::test::honestLeakyRelu();

VerifyOptions cpuOptions()
{
    VerifyOptions o;
    o.device = QStringLiteral("cpu");
    o.timeoutS = 120;
    o.memoryMb = 4096;
    o.fileMb = 64;
    o.buildCache = QStringLiteral(KMOSAIC_VERIFY_BUILD_CACHE);
    return o;
}

// One run of `task`, one turn, its reply written by the caller through `channel`, verified on the CPU.
LaunchSpec oneTurnFromTheCaller(const Task& task, std::shared_ptr<ReplyChannel> channel)
{
    LaunchSpec spec;
    spec.jobs = {AgentJob{task, 0}};
    spec.setup.prompts = PromptLibrary::loadDefault().value();
    spec.setup.guidance = GuidanceLibrary::loadDefault().value();
    spec.setup.verify = cpuOptions();
    spec.setup.budgets.run.turns = 1;
    spec.source.kind = ReplySourceSpec::Kind::Caller;
    spec.source.channel = std::move(channel);
    return spec;
}

qint64 count(store::Database& db, const QString& table)
{
    auto q = db.exec(QStringLiteral("SELECT COUNT(*) AS n FROM ") + table);
    if (!q || !q.value().next())
        return -1;
    return q.value().value(QStringLiteral("n")).toLongLong();
}
}  // namespace

class TestServicesHarness : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto store = TaskStore::open(m_dir.filePath(QStringLiteral("store.sqlite")));
        QVERIFY2(store, store ? "" : qPrintable(store.error().message));
        m_store = std::move(store).value();
        QList<ImportIssue> issues;
        const auto task = readTaskFolder(QStringLiteral(KMOSAIC_TASKS_DIR "/leaky-relu"), &issues);
        QVERIFY(task);
        m_task = *task;
        QVERIFY(m_store->upsertTask(m_task, QStringLiteral("t"), QStringLiteral("test")));
    }

    void verifiesAndStoresInOneTransaction()
    {
        store::Database& db = m_store->database();
        VerificationService service(std::make_unique<LocalExecutor>(harnessLaunch({})), db, QStringLiteral("ana"));
        QCOMPARE(service.maxInFlight(), 1);
        const qint64 solutionsBefore = count(db, QStringLiteral("solutions"));
        const qint64 verdictsBefore = count(db, QStringLiteral("verdicts"));
        Task ghost = m_task;
        ghost.id = QStringLiteral("not-in-the-store");
        QList<VerificationRequest> requests{
            {{m_task, kPassing, QStringLiteral("a.py"), cpuOptions()}, true, {"manual"}},
            {{m_task, kPassing + "# unstored\n", QStringLiteral("b.py"), cpuOptions()}, false, {"manual"}},
            {{ghost, kPassing, QStringLiteral("c.py"), cpuOptions()}, true, {"manual"}},
        };
        QList<VerificationOutcome> outcomes;
        QStringList phases;
        service.runAndWait(
            requests, [&](int index, const QString& phase) { phases << QStringLiteral("%1:%2").arg(index).arg(phase); },
            [&](const VerificationOutcome& o) {
                outcomes.append(o);
                return true;
            });
        QCOMPARE(outcomes.size(), 3);
        std::sort(outcomes.begin(), outcomes.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
        QVERIFY(!phases.isEmpty());

        const VerificationOutcome& stored = outcomes[0];
        QVERIFY2(stored.verdict && !stored.error, stored.error ? qPrintable(stored.error->message) : "");
        QCOMPARE(toString(stored.verdict->status), toString(VerdictStatus::Passed));
        QVERIFY(stored.verdict->id > 0 && stored.verdict->solutionId > 0);  // as stored, with its ids

        const VerificationOutcome& unstored = outcomes[1];
        QVERIFY(unstored.verdict && !unstored.error);
        QCOMPARE(unstored.verdict->id, 0);

        // The store refused the third (its task is unknown): an error, and neither its solution nor its verdict.
        const VerificationOutcome& refused = outcomes[2];
        QVERIFY(refused.error);
        QVERIFY2(refused.error->message.contains(QLatin1String("not-in-the-store")),
                 qPrintable(refused.error->message));
        QCOMPARE(count(db, QStringLiteral("solutions")), solutionsBefore + 1);
        QCOMPARE(count(db, QStringLiteral("verdicts")), verdictsBefore + 1);
    }

    void cancelEndsQueuedAndRunningRequests()
    {
        VerificationService service(std::make_unique<LocalExecutor>(harnessLaunch({})), m_store->database(),
                                    QStringLiteral("ana"));
        QSignalSpy ended(&service, &VerificationService::ended);
        QSignalSpy idle(&service, &VerificationService::idle);
        VerificationRequest r{
            {m_task, kPassing, QStringLiteral("a.py"), cpuOptions()}, false, QStringLiteral("manual")};
        const QList<quint64> tickets = service.submit({r, r, r});
        QCOMPARE(service.pending(), 3);
        service.cancel(tickets[2]);  // queued
        QCOMPARE(ended.size(), 1);
        QVERIFY(ended.first().first().value<VerificationOutcome>().cancelled);
        service.cancelAll();  // the one in flight and the one queued
        QCOMPARE(ended.size(), 3);
        QCOMPARE(service.pending(), 0);
        QVERIFY(idle.size() >= 1);
        // Nothing comes later for the cancelled ones, and the service still verifies.
        QVERIFY(!ended.wait(500));
        service.submit({r});
        QVERIFY(ended.wait(kWaitMs));
        QVERIFY(ended.last().first().value<VerificationOutcome>().verdict);
    }

    void anExecutorThatCannotBeBuiltEndsEveryRequest()
    {
        qputenv("KMOSAIC_NVIDIA_SMI", "/nonexistent/nvidia-smi");
        ExecutorFactory factory(harnessLaunch({}));
        ExecutorSettings s;
        s.gpus = QStringLiteral("0");  // asked for, and there is no nvidia-smi
        VerificationService service(factory, s, m_store->database(), QStringLiteral("ana"));
        QVERIFY(!service.executor());
        QSignalSpy ended(&service, &VerificationService::ended);
        VerificationRequest r{{m_task, kPassing, QStringLiteral("a.py"), cpuOptions()}, true, QStringLiteral("manual")};
        service.submit({r, r});
        QCOMPARE(ended.size(), 0);  // answered from the event loop, never inside submit()
        QTRY_COMPARE(ended.size(), 2);
        for (const auto& args : ended) {
            const auto o = args.first().value<VerificationOutcome>();
            QVERIFY(o.error);
            QVERIFY2(o.error->message.contains(QLatin1String("nvidia-smi")), qPrintable(o.error->message));
        }
        qunsetenv("KMOSAIC_NVIDIA_SMI");
    }

    // The manual agent of a front end: the prompt arrives through the channel, the caller's reply is verified and
    // recorded as a step exactly like a model's, and the run ends PASSED.
    void aRunWhoseRepliesTheCallerWrites()
    {
        store::Database& db = m_store->database();
        VerificationService verification(std::make_unique<LocalExecutor>(harnessLaunch({})), db, QStringLiteral("ana"));
        AgentLaunchService launcher(verification, db, QStringLiteral("ana"));
        auto channel = std::make_shared<ReplyChannel>();
        QStringList prompts;
        connect(channel.get(), &ReplyChannel::replyWanted, this, [&](int step, const QString& prompt) {
            prompts << prompt;
            QVERIFY(channel->provide(step, QStringLiteral("```python\n%1```\n").arg(kPassing)));
        });
        LaunchSpec spec = oneTurnFromTheCaller(m_task, channel);
        QSignalSpy steps(&launcher, &AgentLaunchService::stepRecorded);
        auto outcomes = launcher.launchAndWait(spec);
        QVERIFY2(outcomes, outcomes ? "" : qPrintable(outcomes.error().message));
        QCOMPARE(outcomes->size(), 1);
        const AgentOutcome& o = outcomes->first();
        QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
        QVERIFY(o.run);
        QCOMPARE(prompts.size(), 1);
        QVERIFY(prompts.first().contains(QLatin1String("ModelNew")));  // the implement prompt, with its contract
        QCOMPARE(steps.size(), 1);
        auto stored = TrajectoryStore(db).steps(o.runId);
        QVERIFY(stored);
        QCOMPARE(stored->size(), 1);
        QCOMPARE(stored->first().status, QStringLiteral("PASSED"));
        QCOMPARE(stored->first().usage.value(QStringLiteral("from")).toString(), QStringLiteral("caller"));
        QCOMPARE(o.run->settings.value(QStringLiteral("source")).toMap().value(QStringLiteral("mode")).toString(),
                 QStringLiteral("caller"));
        QCOMPARE(launcher.activeLaunches(), 0);
    }

    // A launch verifies where it names: the services' own place for their own settings, one more place per other
    // settings (made once, kept warm), and a pool socket nothing answers on fails the launch saying so.
    void launchesVerifyWhereTheyName()
    {
        store::Database& db = m_store->database();
        ExecutorFactory factory(harnessLaunch({}));
        ExecutorSettings own;
        own.device = QStringLiteral("cpu");
        own.singleWorker = true;
        VerificationService verification(factory, own, db, QStringLiteral("ana"));
        VerificationPlaces places(verification, own, harnessLaunch({}), db, QStringLiteral("ana"));
        QCOMPARE(&places.at(std::nullopt), &verification);
        QCOMPARE(&places.at(own), &verification);
        QCOMPARE(places.othersMade(), 0);
        ExecutorSettings other;  // this machine's CPU without the single-worker shortcut: another place
        other.device = QStringLiteral("cpu");
        VerificationService& there = places.at(other);
        QVERIFY(&there != &verification);
        QCOMPARE(&places.at(other), &there);
        QCOMPARE(places.othersMade(), 1);

        AgentLaunchService launcher(verification, db, QStringLiteral("ana"), &places);
        auto channel = std::make_shared<ReplyChannel>();
        connect(channel.get(), &ReplyChannel::replyWanted, this, [&](int step, const QString&) {
            QVERIFY(channel->provide(step, QStringLiteral("```python\n%1```\n").arg(kPassing)));
        });
        LaunchSpec spec = oneTurnFromTheCaller(m_task, channel);
        spec.executor = other;
        auto outcomes = launcher.launchAndWait(spec);
        QVERIFY2(outcomes, outcomes ? "" : qPrintable(outcomes.error().message));
        QVERIFY2(outcomes->first().error.isEmpty(), qPrintable(outcomes->first().error));
        QVERIFY(there.executor());          // built for this launch
        QVERIFY(!verification.executor());  // the own place was never needed

        ExecutorSettings deadPool;
        deadPool.pool = m_dir.filePath(QStringLiteral("nobody.sock"));
        spec.executor = deadPool;
        const auto refused = launcher.launchAndWait(spec);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(QLatin1String("no verification pool answers on")),
                 qPrintable(refused.error().message));
        QCOMPARE(places.othersMade(), 2);
    }

    // The workbench's own verification reuses a `kmosaic pool serve` answering on the default socket, and builds its
    // own workers where none answers.
    void reusesAPoolOnTheDefaultSocket()
    {
        const QString runtime = m_dir.filePath(QStringLiteral("runtime"));
        QVERIFY(QDir().mkpath(runtime));
        qputenv("XDG_RUNTIME_DIR", runtime.toUtf8());
        const QString socket = pool::defaultSocketPath();
        QCOMPARE(socket, runtime + QStringLiteral("/kmosaic-pool.sock"));
        ExecutorSettings s;
        s.device = QStringLiteral("cpu");
        s.singleWorker = true;
        s.reuseDefaultPool = true;
        ExecutorFactory factory(harnessLaunch({}));
        auto alone = factory.createAndWait(s);
        QVERIFY2(alone, alone ? "" : qPrintable(alone.error().message));
        QVERIFY(alone.value()->name() != QLatin1String("local (pool)"));
        QVERIFY(factory.note().isEmpty());

        QProcess pool;
        pool.start(QStringLiteral(KMOSAIC_CLI), {"--db", m_store->path(), "pool", "serve", "--socket", socket});
        QVERIFY(pool.waitForReadyRead(60000));
        QVERIFY2(pool.readLine().contains("listening on"), "the pool did not say where it listens");
        auto reused = factory.createAndWait(s);
        QVERIFY2(reused, reused ? "" : qPrintable(reused.error().message));
        QCOMPARE(reused.value()->name(), QStringLiteral("local (pool)"));
        QVERIFY2(factory.note().contains(socket), qPrintable(factory.note()));
        reused.value().reset();  // the client goes before the pool
        pool.terminate();
        QVERIFY(pool.waitForFinished(30000));
        qunsetenv("XDG_RUNTIME_DIR");
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    Task m_task;
};

QTEST_GUILESS_MAIN(TestServicesHarness)
#include "test_services_harness.moc"
