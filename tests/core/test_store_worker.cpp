// StoreWorker over a real SQLite file: answers on the caller's thread, never inside submit; stale answers dropped and
// queued reads coalesced per channel; writes in order with their results; the change signal for a commit made by
// another process (kmosaic_store_writer); shutdown with requests still queued.
#include "store/StoreWorker.h"

#include <QPointer>
#include <QProcess>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>

using namespace km;

namespace {

const QString kWriter = QStringLiteral(KMOSAIC_TEST_HELPER_DIR "/kmosaic_store_writer");
constexpr int kTimeoutMs = 20000;  // generous: a loaded 2-core machine must not turn a pass into a failure

Task task(const QString& id, const QString& title)
{
    Task t;
    t.id = id;
    t.title = title;
    t.level = 1;
    t.description = QStringLiteral("Task %1.").arg(id);
    t.reference = QStringLiteral("import torch\n");
    t.shown = PresentationSet{Presentation::Description, Presentation::Reference};
    return t;
}

// Holds the worker thread inside a job until released, so the test can queue requests behind it.
struct Gate {
    QSemaphore entered;
    QSemaphore release;
    std::function<Result<int>(TaskStore&)> job()
    {
        return [this](TaskStore&) -> Result<int> {
            entered.release();
            release.acquire();
            return 0;
        };
    }
};

}  // namespace

class TestStoreWorker : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;

    std::unique_ptr<StoreWorker> openWorker(int pollMs = StoreWorker::kDefaultPollMs)
    {
        auto w = StoreWorker::open(m_path, pollMs);
        if (!w) {
            qWarning("cannot open the worker: %s", qPrintable(w.error().message));
            return nullptr;
        }
        return std::move(w).value();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("worker.sqlite"));
        auto store = TaskStore::open(m_path);
        QVERIFY(store);
        for (const QString& id : {QStringLiteral("alpha"), QStringLiteral("beta")})
            QVERIFY(store.value()->upsertTask(task(id, id.toUpper()), QStringLiteral("setup"), {}).ok());
    }

    void openFailsWithTheStoresError()
    {
        auto w = StoreWorker::open(m_dir.path());  // a folder, not a store
        QVERIFY(!w.ok());
        QVERIFY2(w.error().message.contains(QStringLiteral("is a folder")), qPrintable(w.error().message));
    }

    void snapshotIsAnsweredLaterOnTheCallersThread()
    {
        auto worker = openWorker();
        QVERIFY(worker);
        QObject context;
        std::optional<Result<QList<TaskSummary>>> answer;
        QThread* ranOn = nullptr;
        QThread* answeredOn = nullptr;
        worker->submit<QList<TaskSummary>>(
            QStringLiteral("summaries"),
            [&ranOn](TaskStore& s) {
                ranOn = QThread::currentThread();
                return s.summaries({});
            },
            &context,
            [&](Result<QList<TaskSummary>> r) {
                answeredOn = QThread::currentThread();
                answer = std::move(r);
            });
        QVERIFY(!answer.has_value());  // queued: never answered inside submit
        QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), kTimeoutMs);
        QVERIFY2(answer->ok(), answer->ok() ? "" : qPrintable(answer->error().message));
        QCOMPARE(answer->value().size(), 2);
        QCOMPARE(answer->value().first().title, QStringLiteral("ALPHA"));
        QCOMPARE(answeredOn, QThread::currentThread());
        QVERIFY(ranOn != nullptr && ranOn != QThread::currentThread());  // the SQL ran on the worker's thread
    }

    // Two reads of one channel: the first is running when the second is asked; only the second is answered.
    void staleAnswerIsDropped()
    {
        auto worker = openWorker();
        QVERIFY(worker);
        QObject context;
        QStringList answered;
        Gate gate;
        std::atomic<bool> firstRan = false;
        const quint64 first = worker->submit<int>(
            QStringLiteral("task"),
            [&](TaskStore& s) {
                firstRan = true;
                return gate.job()(s);
            },
            &context, [&](Result<int>) { answered.append(QStringLiteral("first")); });
        QVERIFY(gate.entered.tryAcquire(1, kTimeoutMs));
        const quint64 second = worker->submit<int>(
            QStringLiteral("task"), [](TaskStore&) -> Result<int> { return 2; }, &context,
            [&](Result<int> r) { answered.append(QStringLiteral("second %1").arg(r.value())); });
        QVERIFY(!worker->isCurrent(QStringLiteral("task"), first));
        QVERIFY(worker->isCurrent(QStringLiteral("task"), second));
        gate.release.release();
        QSignalSpy idle(worker.get(), &StoreWorker::idle);
        QVERIFY(idle.wait(kTimeoutMs));
        QVERIFY(firstRan);
        QCOMPARE(answered, QStringList{QStringLiteral("second 2")});
    }

    // Reads queued behind a busy worker coalesce: only the latest of their channel runs; other channels still run.
    void queuedReadsCoalesceLatestWins()
    {
        auto worker = openWorker();
        QVERIFY(worker);
        QObject context;
        Gate gate;
        worker->write<int>(gate.job(), &context, [](Result<int>) {});
        QVERIFY(gate.entered.tryAcquire(1, kTimeoutMs));
        std::atomic<int> runs = 0;
        QList<int> answers;
        for (int i = 1; i <= 3; ++i)
            worker->submit<int>(
                QStringLiteral("summaries"),
                [&runs, i](TaskStore&) -> Result<int> {
                    ++runs;
                    return i;
                },
                &context, [&answers](Result<int> r) { answers.append(r.value()); });
        bool otherAnswered = false;
        worker->submit<int>(
            QStringLiteral("task"), [](TaskStore&) -> Result<int> { return 0; }, &context,
            [&otherAnswered](Result<int>) { otherAnswered = true; });
        QCOMPARE(worker->pending(), 5);
        gate.release.release();
        QSignalSpy idle(worker.get(), &StoreWorker::idle);
        QVERIFY(idle.wait(kTimeoutMs));
        QCOMPARE(runs.load(), 1);
        QCOMPARE(answers, QList<int>{3});
        QVERIFY(otherAnswered);
        QCOMPARE(worker->pending(), 0);
    }

    void writesRunInOrderAndAnswerTheirResult()
    {
        auto worker = openWorker();
        QVERIFY(worker);
        QObject context;
        QList<Result<UpsertOutcome>> outcomes;
        const Task gamma = task(QStringLiteral("gamma"), QStringLiteral("Gamma"));
        for (int i = 0; i < 2; ++i)
            worker->write<UpsertOutcome>([gamma](TaskStore& s) { return s.upsertTask(gamma, "anna", "test"); },
                                         &context, [&](Result<UpsertOutcome> r) { outcomes.append(std::move(r)); });
        std::optional<Result<ReviewRecord>> refused;
        worker->write<ReviewRecord>(
            [](TaskStore& s) { return s.review("no-such-task", ReviewStatus::Accepted, "anna", {}, {}); }, &context,
            [&](Result<ReviewRecord> r) { refused = std::move(r); });
        std::optional<Task> read;
        worker->submit<std::optional<Task>>(
            QStringLiteral("task"), [](TaskStore& s) { return s.task("gamma"); }, &context,
            [&](Result<std::optional<Task>> r) { read = r.value(); });
        QTRY_VERIFY_WITH_TIMEOUT(read.has_value(), kTimeoutMs);  // a read after the writes sees them
        QCOMPARE(read->title, QStringLiteral("Gamma"));
        QCOMPARE(outcomes.size(), 2);
        QVERIFY(outcomes.at(0).ok() && outcomes.at(0).value() == UpsertOutcome::Created);
        QVERIFY(outcomes.at(1).ok() && outcomes.at(1).value() == UpsertOutcome::Unchanged);
        QVERIFY(refused.has_value() && !refused->ok());
        QVERIFY2(refused->error().message.contains("no-such-task"), qPrintable(refused->error().message));
        auto direct = TaskStore::open(m_path);  // and another connection sees the write
        QVERIFY(direct && direct.value()->task("gamma").value().has_value());
    }

    void answerForAGoneContextIsNotDelivered()
    {
        auto worker = openWorker();
        QVERIFY(worker);
        bool called = false;
        auto context = std::make_unique<QObject>();
        worker->submit<int>(
            QStringLiteral("x"), [](TaskStore&) -> Result<int> { return 1; }, context.get(),
            [&called](Result<int>) { called = true; });
        context.reset();
        QSignalSpy idle(worker.get(), &StoreWorker::idle);
        QVERIFY(idle.wait(kTimeoutMs));
        QVERIFY(!called);
    }

    // Destroyed with a job running and others queued: nothing is answered afterwards, and the connection is closed
    // (the last one of the file: SQLite checkpoints and removes the -wal).
    void shutdownWithQueuedRequests()
    {
        auto worker = openWorker();
        QVERIFY(worker);
        QObject context;
        Gate gate;
        bool answered = false;
        worker->write<int>(gate.job(), &context, [&answered](Result<int>) { answered = true; });
        QVERIFY(gate.entered.tryAcquire(1, kTimeoutMs));
        for (int i = 0; i < 3; ++i)
            worker->write<int>([](TaskStore& s) { return s.count(); }, &context,
                               [&answered](Result<int>) { answered = true; });
        QVERIFY(QFile::exists(m_path + "-wal"));
        gate.release.release();
        worker.reset();
        QCoreApplication::processEvents();
        QVERIFY(!answered);
        QVERIFY(!QFile::exists(m_path + "-wal"));
    }

    // A commit by another process moves data_version: storeChanged() follows without any request.
    void changeSignalFromAnotherProcess()
    {
        auto worker = openWorker(50);
        QVERIFY(worker);
        QSignalSpy changed(worker.get(), &StoreWorker::storeChanged);
        QProcess writer;
        writer.start(kWriter, {m_path, QStringLiteral("100")});
        QVERIFY2(writer.waitForStarted(kTimeoutMs), qPrintable(writer.errorString()));
        QVERIFY(changed.wait(kTimeoutMs));
        writer.kill();
        writer.waitForFinished(kTimeoutMs);
        QObject context;
        std::optional<int> count;
        worker->submit<int>(
            QStringLiteral("count"), [](TaskStore& s) { return s.count(); }, &context,
            [&count](Result<int> r) { count = r.value(); });
        QTRY_VERIFY_WITH_TIMEOUT(count.has_value(), kTimeoutMs);
        QVERIFY2(*count > 2, qPrintable(QString::number(*count)));  // the writer's tasks are visible to the worker
    }
};

QTEST_GUILESS_MAIN(TestStoreWorker)
#include "test_store_worker.moc"
