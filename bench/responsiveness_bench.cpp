// kmosaic_responsiveness_bench: does the workbench's event loop stay responsive while other processes use its store?
// A controller wired as the workbench wires it (StoreWorker, storeChanged() -> reload) on the GUI thread, offscreen,
// with no window; a 10 ms timer on that thread measures how late each tick comes (lateness = interval - 10 ms):
//   (a) a child process holds the store's write lock for 5 s (BEGIN IMMEDIATE) while the controller saves an edit
//       and reloads: the save waits on the worker thread, the GUI thread must not;
//   (b) a child process records 100 verdicts (VerdictStore::recordVerified, one transaction each, 40 ms apart)
//       while the controller reloads on every change signal.
// The children are this program again (--hold-lock, --verdicts). Usage: kmosaic_responsiveness_bench [--tasks N]
#include "BenchSupport.h"
#include "TaskGenerator.h"
#include "controller/WorkbenchController.h"
#include "models/TaskTableModel.h"
#include "store/Database.h"
#include "store/StoreWorker.h"
#include "store/VerdictStore.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

using namespace km;
using namespace km::bench;

namespace {

constexpr int kTickMs = 10;
constexpr int kHoldMs = 5000;
constexpr int kVerdicts = 100;
constexpr int kPaceMs = 40;  // between two verdicts: about 4 s in all, so the 400 ms poll sees about ten changes

int fail(const QString& what)
{
    QTextStream(stderr) << "kmosaic_responsiveness_bench: " << what << "\n";
    return 1;
}

// Child: takes the write lock, says "locked", keeps it for ms, commits.
int holdLock(const QString& path, int ms)
{
    auto store = TaskStore::open(path);
    if (!store)
        return fail(store.error().message);
    if (Status s = store.value()->database().begin(); !s)
        return fail(s.error().message);
    std::printf("locked\n");
    std::fflush(stdout);
    QThread::msleep(ms);  // the point of this process: a writer that keeps the lock
    if (Status s = store.value()->database().commit(); !s)
        return fail(s.error().message);
    return 0;
}

// Child: records n verdicts, one transaction each, as a batch verification does.
int writeVerdicts(const QString& path, int n)
{
    auto store = TaskStore::open(path);
    if (!store)
        return fail(store.error().message);
    auto ids = store.value()->matchingIds({});
    if (!ids || ids->isEmpty())
        return fail(QStringLiteral("no tasks in %1").arg(path));
    VerdictStore verdicts(store.value()->database());
    for (int i = 0; i < n; ++i) {
        Verdict v;
        v.status = VerdictStatus::CompileError;
        v.executor = QStringLiteral("local");
        v.summary = QStringLiteral("bench verdict %1").arg(i);
        const QString task = ids->at(i % ids->size());
        auto r = verdicts.recordVerified(task, QStringLiteral("// solution %1\n").arg(i), QStringLiteral("agent"), v,
                                         QStringLiteral("bench"));
        if (!r)
            return fail(r.error().message);
        QThread::msleep(kPaceMs);  // pacing: a batch verification spends its time verifying, not writing
    }
    return 0;
}

// Lateness of a 10 ms timer's ticks on this thread, from start() to stop().
class LatenessProbe : public QObject {
public:
    LatenessProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(kTickMs);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            m_lateNs.append(qMax<qint64>(0, now - m_last - qint64(kTickMs) * 1000000));
            m_last = now;
        });
    }
    void start()
    {
        m_lateNs.clear();
        m_clock.start();
        m_last = 0;
        m_timer.start();
    }
    QList<qint64> stop()
    {
        m_timer.stop();
        return m_lateNs;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    QList<qint64> m_lateNs;
};

// Runs the event loop until done() holds or timeoutMs passes.
template <typename Done> bool runUntil(Done done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    return done();
}

Row row(const QString& scenario, const QList<qint64>& late, const QString& note)
{
    return {scenario,
            QStringLiteral("%1 / %2 / %3 ms (%4 ticks)")
                .arg(num(percentile(late, 0.5), 2), num(percentile(late, 0.99), 2),
                     num(late.isEmpty() ? 0.0 : ms(*std::max_element(late.cbegin(), late.cend())), 2))
                .arg(late.size()),
            note};
}

}  // namespace

int main(int argc, char* argv[])  // NOLINT(bugprone-exception-escape)
{
    qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Event-loop lateness of the workbench while others write."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("tasks"), QStringLiteral("Tasks in the store (default 2000)."), "N", "2000"});
    parser.addOption({QStringLiteral("hold-lock"), QStringLiteral("(child) hold the write lock of DB."), "DB"});
    parser.addOption({QStringLiteral("verdicts"), QStringLiteral("(child) record verdicts into DB."), "DB"});
    parser.process(app);
    if (parser.isSet(QStringLiteral("hold-lock")))
        return holdLock(parser.value(QStringLiteral("hold-lock")), kHoldMs);
    if (parser.isSet(QStringLiteral("verdicts")))
        return writeVerdicts(parser.value(QStringLiteral("verdicts")), kVerdicts);

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("responsive.sqlite"));
    const int n = parser.value(QStringLiteral("tasks")).toInt();
    {
        auto store = TaskStore::open(path);
        if (!store)
            return fail(store.error().message);
        QList<Task> tasks;
        for (int i = 0; i < n; ++i)
            tasks.append(generateTask(i, 42));
        if (auto r = store.value()->upsertTasks(tasks, QStringLiteral("bench"), {}); !r)
            return fail(r.error().message);
    }
    auto worker = StoreWorker::open(path);
    if (!worker)
        return fail(worker.error().message);
    StoreWorker& store = *worker.value();
    ui::WorkbenchController controller(store, QStringLiteral("bench"));
    controller.reload();
    if (!runUntil([&] { return store.pending() == 0 && controller.currentTask().has_value(); }, 60000))
        return fail(QStringLiteral("the controller never loaded its first task"));
    int reloads = 0;
    QObject::connect(&store, &StoreWorker::storeChanged, &store, [&reloads] { ++reloads; });
    LatenessProbe probe;
    QList<Row> rows;

    // (a) The write lock held elsewhere for 5 s; meanwhile an edit is saved (it waits) and the list reloads.
    {
        QProcess holder;
        holder.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--hold-lock"), path});
        if (!runUntil([&] { return holder.canReadLine() || holder.state() == QProcess::NotRunning; }, 30000) ||
            !holder.readLine().startsWith("locked"))
            return fail(QStringLiteral("the lock holder did not take the lock: %1")
                            .arg(QString::fromUtf8(holder.readAllStandardError())));
        probe.start();
        QElapsedTimer sinceLock;
        sinceLock.start();
        Task edited = *controller.currentTask();
        edited.description += QStringLiteral("\nEdited while another process holds the lock.\n");
        bool saved = false;
        qint64 savedMs = 0;
        QObject::connect(&controller, &ui::WorkbenchController::saved, &controller,
                         [&](const QString&, bool ok, const QString&) {
                             saved = ok;
                             savedMs = sinceLock.elapsed();
                         });
        if (Status s = controller.saveEdit(edited); !s)
            return fail(s.error().message);
        controller.reload();
        runUntil([&] { return holder.state() == QProcess::NotRunning && saved && store.pending() == 0; }, 60000);
        const QList<qint64> late = probe.stop();
        if (!saved)
            return fail(QStringLiteral("the edit was not saved after the lock was released"));
        rows.append(row(QStringLiteral("(a) write lock held 5 s by another process; save + reload"), late,
                        QStringLiteral("save answered after %1 ms").arg(savedMs)));
    }

    // (b) 100 verdicts written by another process; the controller reloads on each change signal.
    {
        reloads = 0;
        probe.start();
        QElapsedTimer t;
        t.start();
        QProcess writer;
        writer.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--verdicts"), path});
        runUntil([&] { return writer.state() == QProcess::NotRunning; }, 120000);
        const qint64 writerMs = t.elapsed();
        // The last commits are seen at the next poll; then the reload it started is answered.
        runUntil([&] { return t.elapsed() > writerMs + 2 * StoreWorker::kDefaultPollMs && store.pending() == 0; },
                 30000);
        const QList<qint64> late = probe.stop();
        if (writer.exitCode() != 0)
            return fail(
                QStringLiteral("the verdict writer failed: %1").arg(QString::fromUtf8(writer.readAllStandardError())));
        rows.append(row(QStringLiteral("(b) another process records %1 verdicts, %2 ms apart; reload on each change")
                            .arg(kVerdicts)
                            .arg(kPaceMs),
                        late, QStringLiteral("writer ran %1 ms; %2 change signals").arg(writerMs).arg(reloads)));
    }

    QTextStream out(stdout);
    out << "kmosaic_responsiveness_bench (" << n << " tasks, " << kTickMs << " ms timer, poll "
        << StoreWorker::kDefaultPollMs << " ms)\n"
        << machineLine() << "\n\n";
    printTable(out, {QStringLiteral("scenario"), QStringLiteral("timer lateness p50 / p99 / max"), QStringLiteral("")},
               rows);
    return 0;
}
