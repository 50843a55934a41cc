// The use-case services without a harness: the executor factory's settings and policy, its discovery through a
// real (scripted) nvidia-smi that does not block the caller, solution review decisions on a real store file, the
// caller's reply channel, and the agent launch service's refusals.
#include "agent/ReplyChannel.h"
#include "curate/TaskFolder.h"
#include "services/AgentLaunchService.h"
#include "services/ExecutorFactory.h"
#include "services/ServiceHost.h"
#include "services/SolutionReviewService.h"
#include "services/TaskActivity.h"
#include "services/VerificationService.h"
#include "store/Database.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"
#include "verify/HarnessLaunch.h"
#include "verify/LocalExecutor.h"
#include "verify/MultiGpuExecutor.h"

#include <QFile>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>
#include <thread>

using namespace km;

namespace {
void writeScript(const QString& path, const QByteArray& body)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\n" + body);
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

// An nvidia-smi that waits `delay` seconds, then prints the eight-GPU fixture.
QString fakeSmi(const QTemporaryDir& dir, const char* delay = "0")
{
    const QString path = dir.filePath(QStringLiteral("nvidia-smi"));
    writeScript(path, QStringLiteral("sleep %1\ncat '%2'\n")
                          .arg(QString::fromLatin1(delay),
                               QStringLiteral(KMOSAIC_TEST_DATA "/nvidia-smi/query-gpu-8xh100-synthetic.csv"))
                          .toUtf8());
    return path;
}

qint64 count(store::Database& db, const QString& table)
{
    auto q = db.exec(QStringLiteral("SELECT COUNT(*) AS n FROM ") + table);
    if (!q || !q.value().next())
        return -1;
    return q.value().value(QStringLiteral("n")).toLongLong();
}

Verdict verdictOf(VerdictStatus status)
{
    Verdict v;
    v.status = status;
    v.summary = QStringLiteral("by the test");
    v.harnessVersion = harnessVersion();  // what the acceptance gate asks of a verdict (AcceptanceGate.h)
    v.executor = QStringLiteral("local");
    v.evidence = {{QStringLiteral("device"), QStringLiteral("cuda")}};
    return v;
}
}  // namespace

class TestServices : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        qunsetenv("KMOSAIC_NVIDIA_SMI");
        qunsetenv("CUDA_VISIBLE_DEVICES");
    }

    void executorSettingsRoundTripAndRefuseBadValues()
    {
        ExecutorSettings s;
        s.device = QStringLiteral("cuda");
        s.gpus = QStringLiteral("0,2");
        s.workersPerGpu = 2;
        s.reuseDefaultPool = true;
        auto back = ExecutorSettings::fromVariant(s.toVariant());
        QVERIFY(back);
        QCOMPARE(back->toVariant(), s.toVariant());
        QVERIFY(back->reuseDefaultPool);

        const auto refused = [](const QVariantMap& m, const char* words) {
            auto r = ExecutorSettings::fromVariant(m);
            QVERIFY(!r);
            QCOMPARE(r.error().code, ErrorCode::InvalidInput);
            QVERIFY2(r.error().message.contains(QLatin1String(words)), qPrintable(r.error().message));
        };
        refused({{QStringLiteral("device"), QStringLiteral("tpu")}}, "auto, cpu or cuda");
        refused({{QStringLiteral("workers_per_gpu"), 17}}, "1 to 16");
        refused({{QStringLiteral("workers_per_gpu"), QStringLiteral("two")}}, "whole number");
        refused({{QStringLiteral("gpus"), 3}}, "'gpus' must be text");
        refused({{QStringLiteral("pool"), QStringLiteral("auto")}, {QStringLiteral("gpus"), QStringLiteral("0")}},
                "a pool has its own");
        refused({{QStringLiteral("colour"), QStringLiteral("blue")}}, "unknown key 'colour'");
    }

    void buildChoosesTheExecutorTheSettingsName()
    {
        const HarnessLaunch launch = harnessLaunch({});
        ExecutorSettings cpu;
        cpu.device = QStringLiteral("cpu");
        auto one = ExecutorFactory::build(cpu, launch, makeError(ErrorCode::NotFound, QStringLiteral("no smi")));
        QVERIFY(one);
        QVERIFY(qobject_cast<LocalExecutor*>(one.value().get()));

        // No GPU seen and none asked for: the one plain worker, as before.
        ExecutorSettings automatic;
        auto none = ExecutorFactory::build(automatic, launch, QList<GpuDevice>{});
        QVERIFY(none);
        QVERIFY(qobject_cast<LocalExecutor*>(none.value().get()));

        QFile f(QStringLiteral(KMOSAIC_TEST_DATA "/nvidia-smi/query-gpu-8xh100-synthetic.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto eight = parseGpuQuery(QString::fromUtf8(f.readAll()));
        QVERIFY(eight);
        ExecutorSettings two;
        two.gpus = QStringLiteral("1,3");
        two.workersPerGpu = 2;
        auto multi = ExecutorFactory::build(two, launch, eight);
        QVERIFY(multi);
        auto* m = qobject_cast<MultiGpuExecutor*>(multi.value().get());
        QVERIFY(m);
        QCOMPARE(m->gpus().size(), 4);  // two workers on each of two GPUs

        ExecutorSettings missing;
        missing.gpus = QStringLiteral("9");
        auto bad = ExecutorFactory::build(missing, launch, eight);
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::InvalidInput);
        // GPUs asked for where nvidia-smi failed: the discovery's error, named.
        auto failed = ExecutorFactory::build(two, launch, makeError(ErrorCode::Io, QStringLiteral("smi broke")));
        QVERIFY(!failed);
        QVERIFY2(failed.error().message.contains(QLatin1String("--gpus: smi broke")),
                 qPrintable(failed.error().message));
    }

    // The caller's event loop runs while nvidia-smi takes its time: create() returns before any answer.
    void discoveryDoesNotBlockTheCaller()
    {
        qputenv("KMOSAIC_NVIDIA_SMI", fakeSmi(m_dir, "1").toLocal8Bit());
        ExecutorFactory factory(harnessLaunch({}));
        QSignalSpy discovering(&factory, &ExecutorFactory::discovering);
        std::optional<ExecutorFactory::Created> made;
        bool answeredInsideCreate = true;
        ExecutorSettings s;
        s.device = QStringLiteral("cpu");
        s.gpus = QStringLiteral("all");
        factory.create(s, [&](ExecutorFactory::Created c) { made.emplace(std::move(c)); });
        answeredInsideCreate = made.has_value();
        QVERIFY(!answeredInsideCreate);
        QCOMPARE(discovering.size(), 1);
        int ticks = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, this, [&] { ++ticks; });
        tick.start(10);
        QTRY_VERIFY_WITH_TIMEOUT(made.has_value(), 10000);
        QVERIFY2(ticks > 10, qPrintable(QString::number(ticks)));  // the loop turned while nvidia-smi slept
        QVERIFY2(made->ok(), made->ok() ? "" : qPrintable(made->error().message));
        QCOMPARE(qobject_cast<MultiGpuExecutor*>(made->value().get())->gpus().size(), 8);
    }

    void discoveryTimesOutAndCancelDropsTheAnswer()
    {
        qputenv("KMOSAIC_NVIDIA_SMI", fakeSmi(m_dir, "30").toLocal8Bit());
        ExecutorFactory factory(harnessLaunch({}));
        factory.setDiscoveryTimeoutMs(300);
        ExecutorSettings s;
        s.gpus = QStringLiteral("all");
        auto r = factory.createAndWait(s);
        QVERIFY(!r);
        QVERIFY2(r.error().message.contains(QLatin1String("did not answer")), qPrintable(r.error().message));

        // An nvidia-smi that answers at once: cancelled before the event loop runs, its answer never arrives.
        qputenv("KMOSAIC_NVIDIA_SMI", fakeSmi(m_dir, "0").toLocal8Bit());
        bool called = false;
        factory.setDiscoveryTimeoutMs(20000);
        factory.create(s, [&](ExecutorFactory::Created) { called = true; });
        factory.cancel();
        QTest::qWait(1000);  // what must not happen gets ample time to (the script answers in milliseconds)
        // The same factory answers the next request: a cancel spoils nothing.
        std::optional<ExecutorFactory::Created> next;
        factory.create(s, [&](ExecutorFactory::Created c) { next.emplace(std::move(c)); });
        QTRY_VERIFY_WITH_TIMEOUT(next.has_value(), 10000);
        QVERIFY(next->ok());
        QVERIFY(!called);
    }

    void solutionDecisionsNeedAPassingVerdictToAccept()
    {
        auto store = openStoreWithTask();
        QVERIFY(store);
        store::Database& db = store->database();
        VerdictStore verdicts(db);
        auto failing =
            verdicts.recordVerified(QStringLiteral("leaky-relu"), QStringLiteral("code A"), QStringLiteral("manual"),
                                    verdictOf(VerdictStatus::IncorrectNumerical), QStringLiteral("tester"));
        QVERIFY(failing);
        SolutionReviewService reviews(db);
        const qint64 reviewsBefore = count(db, QStringLiteral("reviews"));
        const qint64 auditBefore = count(db, QStringLiteral("audit_log"));

        auto refused = reviews.decide(failing->solutionId, ReviewStatus::Accepted, QStringLiteral("ana"));
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::Conflict);
        QVERIFY2(refused.error().message.contains(QLatin1String("INCORRECT_NUMERICAL")),
                 qPrintable(refused.error().message));
        QCOMPARE(count(db, QStringLiteral("reviews")), reviewsBefore);
        QCOMPARE(count(db, QStringLiteral("audit_log")), auditBefore);
        QCOMPARE(toString(reviews.status(failing->solutionId).value()), toString(ReviewStatus::Draft));

        auto rejected = reviews.decide(failing->solutionId, ReviewStatus::Rejected, QStringLiteral("ana"),
                                       QStringLiteral("R2"), QStringLiteral("wrong slope"));
        QVERIFY2(rejected, rejected ? "" : qPrintable(rejected.error().message));
        QCOMPARE(toString(rejected->from), toString(ReviewStatus::Draft));
        QCOMPARE(rejected->taskId, QStringLiteral("leaky-relu"));
        QCOMPARE(toString(reviews.status(failing->solutionId).value()), toString(ReviewStatus::Rejected));
        QCOMPARE(count(db, QStringLiteral("audit_log")), auditBefore + 1);

        // A passing verdict later: now it can be accepted, and the history has both decisions in order.
        QVERIFY(verdicts.addVerdict(failing->solutionId, verdictOf(VerdictStatus::Passed), QStringLiteral("ci")));
        auto accepted = reviews.decide(failing->solutionId, ReviewStatus::Accepted, QStringLiteral("ana"));
        QVERIFY2(accepted, accepted ? "" : qPrintable(accepted.error().message));
        QCOMPARE(toString(accepted->from), toString(ReviewStatus::Rejected));
        const auto history = reviews.history(failing->solutionId);
        QVERIFY(history);
        QCOMPARE(history->size(), 2);
        QCOMPARE(history->at(0).comment, QStringLiteral("wrong slope"));
        QCOMPARE(toString(history->at(1).to), toString(ReviewStatus::Accepted));
        // Solution decisions are not the task's: the task's own review list stays empty.
        QVERIFY(store->reviews(QStringLiteral("leaky-relu"))->isEmpty());
        auto audit = store->audit(QStringLiteral("solution"), QString::number(failing->solutionId));
        QVERIFY(audit);
        QVERIFY(std::any_of(audit->cbegin(), audit->cend(), [](const AuditEntry& e) {
            return e.action == QLatin1String("status") && e.detail.value(QStringLiteral("to")) == "accepted";
        }));
    }

    void solutionDecisionsRefuseBadInput()
    {
        auto store = openStoreWithTask();
        QVERIFY(store);
        SolutionReviewService reviews(store->database());
        auto unknown = reviews.decide(4242, ReviewStatus::Rejected, QStringLiteral("ana"));
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().code, ErrorCode::NotFound);
        auto sol = VerdictStore(store->database())
                       .addSolution(QStringLiteral("leaky-relu"), QStringLiteral("code B"), QStringLiteral("manual"),
                                    QStringLiteral("t"));
        QVERIFY(sol);
        auto nobody = reviews.decide(sol->id, ReviewStatus::Rejected, QStringLiteral("  "));
        QVERIFY(!nobody);
        QCOMPARE(nobody.error().code, ErrorCode::InvalidInput);
        auto unverified = reviews.decide(sol->id, ReviewStatus::Accepted, QStringLiteral("ana"));
        QVERIFY(!unverified);
        QVERIFY2(unverified.error().message.contains(QLatin1String("no verdict")),
                 qPrintable(unverified.error().message));
        QVERIFY(!reviews.history(4242));
    }

    void replyChannelHandsTheCallersReplyToTheWaitingRun()
    {
        auto channel = std::make_shared<ReplyChannel>();
        QSignalSpy wanted(channel.get(), &ReplyChannel::replyWanted);
        QCOMPARE(channel->provide(0, QStringLiteral("early")).error().code, ErrorCode::InvalidInput);
        auto source = makeCallerReplySource(channel);
        QCOMPARE(source->settings().value(QStringLiteral("mode")).toString(), QStringLiteral("caller"));
        std::optional<Result<SourceReply>> got;
        std::atomic<bool> cancel{false};
        std::thread worker([&] {
            got.emplace(source->reply({{QStringLiteral("user"), QStringLiteral("write relu")}}, 0, &cancel, {}));
        });
        QVERIFY(wanted.wait(5000));
        QCOMPARE(wanted.first().at(1).toString(), QStringLiteral("write relu"));
        QTRY_COMPARE(channel->waitingStep(), 0);
        QVERIFY(!channel->provide(1, QStringLiteral("wrong step")));
        QVERIFY(!channel->provide(0, QStringLiteral("   ")));
        QVERIFY(channel->provide(0, QStringLiteral("```python\nx\n```")));
        worker.join();
        QVERIFY(got && got->ok());
        QCOMPARE(got->value().content, QStringLiteral("```python\nx\n```"));
        QCOMPARE(channel->waitingStep(), -1);

        // Cancelled while waiting, and abandoned: both end the wait with Cancelled.
        std::thread second([&] {
            got.emplace(source->reply({{QStringLiteral("user"), QStringLiteral("p")}}, 1, &cancel, {}));
        });
        QTRY_COMPARE(channel->waitingStep(), 1);
        cancel = true;
        second.join();
        QCOMPARE(got->error().code, ErrorCode::Cancelled);
        cancel = false;
        channel->abandon();
        QCOMPARE(source->reply({{QStringLiteral("user"), QStringLiteral("p")}}, 2, &cancel, {}).error().code,
                 ErrorCode::Cancelled);
    }

    void launchRefusesIncompleteSpecs()
    {
        auto store = openStoreWithTask();
        QVERIFY(store);
        ExecutorFactory factory(harnessLaunch({}));
        VerificationService verification(factory, {}, store->database(), QStringLiteral("t"));
        AgentLaunchService launcher(verification, store->database(), QStringLiteral("t"));
        LaunchSpec spec;
        QCOMPARE(launcher.launch(spec).error().message, QStringLiteral("no task to run"));
        spec.jobs = {AgentJob{store->task(QStringLiteral("leaky-relu"))->value(), 0}};
        QVERIFY2(launcher.launch(spec).error().message.contains(QLatin1String("no provider")), "provider");
        spec.source.kind = ReplySourceSpec::Kind::ManualFolder;
        QVERIFY(launcher.launch(spec).error().message.contains(QLatin1String("folder")));
        spec.source.kind = ReplySourceSpec::Kind::Caller;
        spec.source.channel = std::make_shared<ReplyChannel>();
        spec.concurrency = 2;
        QVERIFY(launcher.launch(spec).error().message.contains(QLatin1String("one at a time")));
        spec.concurrency = 0;
        QVERIFY(launcher.launch(spec).error().message.contains(QLatin1String(">= 1")));
        QCOMPARE(launcher.activeLaunches(), 0);
    }

    void taskActivityCountsSolutionsAndRuns()
    {
        auto store = openStoreWithTask();
        QVERIFY(store);
        store::Database& db = store->database();
        auto none = readTaskActivity(db, QStringLiteral("leaky-relu"));
        QVERIFY(none);
        QVERIFY(none->empty());
        QCOMPARE(none->summary(), QString());

        VerdictStore verdicts(db);
        Verdict fast = verdictOf(VerdictStatus::Passed);
        fast.speedup = 1.5;
        auto a = verdicts.recordVerified(QStringLiteral("leaky-relu"), QStringLiteral("code A"),
                                         QStringLiteral("manual"), fast, QStringLiteral("t"));
        QVERIFY(a);
        fast.speedup = 2.25;
        QVERIFY(verdicts.addVerdict(a->solutionId, fast, QStringLiteral("t")));
        Verdict slowWrong = verdictOf(VerdictStatus::IncorrectNumerical);
        slowWrong.speedup = 9.0;  // a wrong answer's speed counts for nothing
        QVERIFY(verdicts.recordVerified(QStringLiteral("leaky-relu"), QStringLiteral("code B"), QStringLiteral("agent"),
                                        slowWrong, QStringLiteral("t")));
        QVERIFY(SolutionReviewService(db).decide(a->solutionId, ReviewStatus::Accepted, QStringLiteral("ana")));

        TrajectoryStore trajectories(db);
        AgentRun run;
        run.taskId = QStringLiteral("leaky-relu");
        auto created = trajectories.createRun(run, QStringLiteral("t"));
        QVERIFY(created);
        QVERIFY(trajectories.finishRun(created->id, RunState::Completed, {}, {{QStringLiteral("best_speedup"), 1.75}}));
        QVERIFY(trajectories.createRun(run, QStringLiteral("t")));  // still running

        auto activity = readTaskActivity(db, QStringLiteral("leaky-relu"));
        QVERIFY2(activity, activity ? "" : qPrintable(activity.error().message));
        QCOMPARE(activity->solutions, 2);
        QCOMPARE(activity->acceptedSolutions, 1);
        QCOMPARE(activity->passingSolutions, 1);
        QCOMPARE(activity->bestSpeedup.value_or(0), 2.25);
        QCOMPARE(activity->runs, 2);
        QCOMPARE(activity->runningRuns, 1);
        QCOMPARE(activity->bestRunSpeedup.value_or(0), 1.75);
        QCOMPARE(
            activity->summary(),
            QStringLiteral("2 solutions (1 accepted, 1 passing, best 2.25x) · 2 agent runs (1 running, best 1.75x)"));
        QVERIFY(readTaskActivity(db, QStringLiteral("no-such-task"))->empty());
    }

    // The workbench's services run on a thread of their own; results come back to the caller's thread.
    void serviceHostRunsTheServicesOnItsOwnThread()
    {
        auto store = openStoreWithTask();
        QVERIFY(store);
        auto sol = VerdictStore(store->database())
                       .recordVerified(QStringLiteral("leaky-relu"), QStringLiteral("code C"), QStringLiteral("manual"),
                                       verdictOf(VerdictStatus::Passed), QStringLiteral("t"));
        QVERIFY(sol);
        ServiceHost host({store->path(), {}, QStringLiteral("ana"), {}, harnessLaunch({})});
        QSignalSpy ready(&host, &ServiceHost::ready);
        std::optional<Result<ReviewRecord>> decided;
        QThread* ranOn = nullptr;
        host.start();
        // Posted before the services exist: it runs once they do, in order.
        host.call<Result<ReviewRecord>>(
            [&, id = sol->solutionId](ServiceHost::Services& s) {
                ranOn = QThread::currentThread();
                return s.solutions.decide(id, ReviewStatus::Accepted, QStringLiteral("ana"));
            },
            this, [&](Result<ReviewRecord> r) { decided.emplace(std::move(r)); });
        QVERIFY(ready.wait(10000));
        QCOMPARE(ready.first().at(0).toBool(), true);
        QVERIFY(host.verification() && host.agents());
        QTRY_VERIFY(decided.has_value());
        QVERIFY2(decided->ok(), decided->ok() ? "" : qPrintable(decided->error().message));
        QVERIFY(ranOn && ranOn != QThread::currentThread());
        // Written by the host's own connection: this thread's connection reads it.
        QCOMPARE(toString(SolutionReviewService(store->database()).status(sol->solutionId).value()),
                 toString(ReviewStatus::Accepted));
    }

    void serviceHostSaysWhyItCouldNotStart()
    {
        const QString notAStore = m_dir.filePath(QStringLiteral("notes.txt"));
        QFile f(notAStore);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are my notes, not a database\n");
        f.close();
        auto host = std::make_unique<ServiceHost>(
            ServiceHost::Config{notAStore, {}, QStringLiteral("ana"), {}, harnessLaunch({})});
        QSignalSpy ready(host.get(), &ServiceHost::ready);
        std::atomic<bool> ran{false};
        host->start();
        host->post([&](ServiceHost::Services&) { ran = true; });
        QVERIFY(ready.wait(10000));
        QCOMPARE(ready.first().at(0).toBool(), false);
        QVERIFY(!ready.first().at(1).toString().isEmpty());
        QVERIFY(!host->verification());
        host.reset();  // its thread has handled everything posted before it ends: the post was dropped, not run
        QVERIFY(!ran);
        QFile back(notAStore);
        QVERIFY(back.open(QIODevice::ReadOnly));
        QCOMPARE(back.readAll(), QByteArray("these are my notes, not a database\n"));
    }

private:
    std::unique_ptr<TaskStore> openStoreWithTask()
    {
        const QString path = m_dir.filePath(QStringLiteral("store-%1.sqlite").arg(++m_stores));
        auto store = TaskStore::open(path);
        if (!store)
            return nullptr;
        QList<ImportIssue> issues;
        const auto task = readTaskFolder(QStringLiteral(KMOSAIC_TASKS_DIR "/leaky-relu"), &issues);
        if (!task || !store.value()->upsertTask(*task, QStringLiteral("t"), QStringLiteral("test")))
            return nullptr;
        return std::move(store).value();
    }

    QTemporaryDir m_dir;
    int m_stores = 0;
};

QTEST_GUILESS_MAIN(TestServices)
#include "test_services.moc"
