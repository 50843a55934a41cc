// Trajectory bundles in and out of a real store (services/TrajectoryTransfer) and the workbench's first start
// (services/FirstStart): the shipped demonstrations import once and are skipped after, cancel stops between runs,
// a run of a task the store lacks fails alone, a bad file names itself, an export writes what a second store imports.
#include "curate/BundledTasks.h"
#include "services/FirstStart.h"
#include "services/TrajectoryTransfer.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;

namespace {
std::unique_ptr<TaskStore> openStore(const QTemporaryDir& dir, const QString& name)
{
    auto s = TaskStore::open(dir.filePath(name));
    return s ? std::move(s).value() : nullptr;
}

int runCount(TaskStore& store)
{
    auto runs = TrajectoryStore(store.database()).runs();
    return runs ? int(runs->size()) : -1;
}
}  // namespace

class TestTrajectoryTransfer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void firstStartSeedsTasksThenDemonstrations()
    {
        QTemporaryDir dir;
        auto store = openStore(dir, QStringLiteral("first.sqlite"));
        QVERIFY(store);
        auto first = seedFirstStart(*store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester"));
        QVERIFY2(first.ok(), first ? "" : qPrintable(first.error().message));
        QVERIFY(first->tasks.has_value());
        QVERIFY(first->tasks->created > 0);
        QVERIFY(first->runs.has_value());
        QCOMPARE(first->runs->count(BundleRunOutcome::Kind::Imported), 6);
        QCOMPARE(first->runs->count(BundleRunOutcome::Kind::Failed), 0);
        QCOMPARE(runCount(*store), 6);
        QVERIFY(first->runs->summary().endsWith(QStringLiteral(": 6 imported, 0 skipped, 0 failed")));

        // A second start finds tasks: nothing is imported again, not even runs a user deleted.
        auto second = seedFirstStart(*store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester"));
        QVERIFY(second.ok());
        QVERIFY(!second->tasks.has_value());
        QVERIFY(!second->runs.has_value());
        QCOMPARE(runCount(*store), 6);
    }

    void importTwiceSkipsAndCancelStopsBetweenRuns()
    {
        QTemporaryDir dir;
        auto store = openStore(dir, QStringLiteral("twice.sqlite"));
        QVERIFY(store);
        QVERIFY(seedIfEmpty(*store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester")).ok());
        auto bundle = readTrajectoryBundleFile(shippedDemonstrationsPath());
        QVERIFY2(bundle.ok(), bundle ? "" : qPrintable(bundle.error().message));

        QList<std::pair<int, int>> calls;
        const BundleImportReport partial =
            importTrajectoryBundle(store->database(), bundle.value(), QStringLiteral("demo.json"),
                                   QStringLiteral("tester"), [&calls](int done, int total) {
                                       calls.append({done, total});
                                       return done < 2;
                                   });
        QVERIFY(partial.cancelled);
        QCOMPARE(partial.runs.size(), 2);
        QCOMPARE(calls, (QList<std::pair<int, int>>{{1, 6}, {2, 6}}));
        QCOMPARE(runCount(*store), 2);
        QVERIFY(partial.summary().endsWith(QStringLiteral("(cancelled)")));

        const BundleImportReport full = importTrajectoryBundle(store->database(), bundle.value(),
                                                               QStringLiteral("demo.json"), QStringLiteral("tester"));
        QVERIFY(!full.cancelled);
        QCOMPARE(full.count(BundleRunOutcome::Kind::Skipped), 2);
        QCOMPARE(full.count(BundleRunOutcome::Kind::Imported), 4);
        QCOMPARE(full.runs[0].runId, partial.runs[0].runId);  // skipped: names the run it is stored as
        QCOMPARE(runCount(*store), 6);
    }

    void aRunWhoseTaskIsMissingFailsAlone()
    {
        QTemporaryDir dir;
        auto store = openStore(dir, QStringLiteral("missing.sqlite"));
        QVERIFY(store);
        QVERIFY(seedIfEmpty(*store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester")).ok());
        auto bundle = readTrajectoryBundleFile(shippedDemonstrationsPath());
        QVERIFY(bundle.ok());
        bundle.value().runs[1].run.taskId = QStringLiteral("no-such-task");
        const BundleImportReport r = importTrajectoryBundle(store->database(), bundle.value(), QStringLiteral("x.json"),
                                                            QStringLiteral("tester"));
        QCOMPARE(r.count(BundleRunOutcome::Kind::Failed), 1);
        QCOMPARE(r.count(BundleRunOutcome::Kind::Imported), 5);
        QCOMPARE(toString(r.runs[1].kind), QStringLiteral("failed"));
        QCOMPARE(r.runs[1].runId, 0);
        QVERIFY2(r.runs[1].error.contains(QStringLiteral("no-such-task")), qPrintable(r.runs[1].error));
        QCOMPARE(runCount(*store), 5);
    }

    void badFilesNameThemselves()
    {
        QTemporaryDir dir;
        auto missing = readTrajectoryBundleFile(dir.filePath(QStringLiteral("nope.json")));
        QVERIFY(!missing.ok());
        QVERIFY(missing.error().message.startsWith(QStringLiteral("cannot read ")));
        QFile f(dir.filePath(QStringLiteral("broken.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"kmosaic-trajectories\", ");
        f.close();
        auto broken = readTrajectoryBundleFile(f.fileName());
        QVERIFY(!broken.ok());
        QVERIFY2(broken.error().message.startsWith(f.fileName() + QStringLiteral(": ")),
                 qPrintable(broken.error().message));
    }

    void exportWritesWhatAnotherStoreImports()
    {
        QTemporaryDir dir;
        auto source = openStore(dir, QStringLiteral("source.sqlite"));
        QVERIFY(source);
        QVERIFY(seedFirstStart(*source, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester")).ok());
        const QString out = dir.filePath(QStringLiteral("out.json"));
        auto written = exportTrajectoryBundle(source->database(), RunSelection{}, out, QStringLiteral("round trip"),
                                              QStringLiteral("test"));
        QVERIFY2(written.ok(), written ? "" : qPrintable(written.error().message));
        QCOMPARE(written->runs, 6);
        QCOMPARE(written->steps, 14);
        QVERIFY(written->stillRunning.isEmpty());
        QCOMPARE(written->summary(), QStringLiteral("exported 6 run(s), 14 step(s) to %1").arg(out));

        auto target = openStore(dir, QStringLiteral("target.sqlite"));
        QVERIFY(target);
        QVERIFY(seedIfEmpty(*target, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester")).ok());
        auto bundle = readTrajectoryBundleFile(out);
        QVERIFY(bundle.ok());
        QCOMPARE(bundle->label, QStringLiteral("round trip"));
        const BundleImportReport r =
            importTrajectoryBundle(target->database(), bundle.value(), out, QStringLiteral("tester"));
        // The demonstrations keep their origin through the export: the same runs, not copies of copies.
        QCOMPARE(r.count(BundleRunOutcome::Kind::Imported), 6);
        QCOMPARE(runCount(*target), 6);

        auto none = exportTrajectoryBundle(source->database(), RunSelection{{}, QStringLiteral("leaky-relu-x")},
                                           dir.filePath(QStringLiteral("none.json")), {}, QStringLiteral("test"));
        QVERIFY(!none.ok());
        QCOMPARE(none.error().code, ErrorCode::NotFound);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.json"))));
        auto unwritable =
            exportTrajectoryBundle(source->database(), RunSelection{},
                                   dir.filePath(QStringLiteral("no/such/dir/x.json")), {}, QStringLiteral("test"));
        QVERIFY(!unwritable.ok());
        QVERIFY(unwritable.error().message.startsWith(QStringLiteral("cannot write ")));
    }
};

QTEST_GUILESS_MAIN(TestTrajectoryTransfer)
#include "test_trajectory_transfer.moc"
