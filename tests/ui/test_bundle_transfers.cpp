// File > Import / Export Trajectory Bundle in the workbench: the shipped demonstrations import with a report naming
// every run, a second import skips them all, a broken file says what is wrong where, and an export writes them.
#include "WorkbenchFixture.h"
#include "services/TrajectoryTransfer.h"
#include "store/TrajectoryStore.h"
#include "views/BundleTransfers.h"

#include <QMessageBox>

using namespace km;

class TestBundleTransfers : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;

    // The report box the import opened: its summary and per-run lines; closed after.
    static QString takeBox(test::Workbench& b, const char* name)
    {
        QMessageBox* box = nullptr;
        for (QDeadlineTimer deadline(20000); !box && !deadline.hasExpired();) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
            box = b.window.findChild<QMessageBox*>(name);
        }
        if (!box)
            return QStringLiteral("no %1 box").arg(QLatin1String(name));
        const QString text = box->text() + "\n" + box->detailedText();
        box->setObjectName("seen");
        box->close();
        return text;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(test::openSeeded(m_dir, m_store, m_settings)); }

    void importReportsEveryRunThenSkipsThem()
    {
        test::Workbench b(*m_store, *m_settings);
        QSignalSpy imported(b.window.bundles(), &ui::BundleTransfers::imported);
        b.window.bundles()->startImport(shippedDemonstrationsPath());
        QVERIFY(imported.wait(20000));
        QString text = takeBox(b, "bundleReport");
        QVERIFY2(text.contains(": 6 imported, 0 skipped, 0 failed"), qPrintable(text));
        QVERIFY2(text.contains("run 1 (") && text.contains("imported as run ") && text.contains(" steps)"),
                 qPrintable(text));
        QCOMPARE(TrajectoryStore(m_store->database()).runs().value().size(), 6);
        // The task list follows the store: the demonstrations' tasks now show their runs.
        auto* model = b.controller.taskModel();
        const QString task = TrajectoryStore(m_store->database()).runs().value().first().taskId;
        QTRY_VERIFY(model->activityOf(task).runs > 0);

        b.window.bundles()->startImport(shippedDemonstrationsPath());
        QVERIFY(imported.wait(20000));
        text = takeBox(b, "bundleReport");
        QVERIFY2(text.contains(": 0 imported, 6 skipped, 0 failed"), qPrintable(text));
        QVERIFY(text.contains("skipped: already stored as run "));
        QCOMPARE(TrajectoryStore(m_store->database()).runs().value().size(), 6);
    }

    void aBrokenFileSaysWhatIsWrong()
    {
        test::Workbench b(*m_store, *m_settings);
        QFile f(m_dir.filePath("broken.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"kmosaic-trajectories\", \"version\": 1, \"runs\": [{}]}");
        f.close();
        b.window.bundles()->startImport(f.fileName());
        const QString text = takeBox(b, "bundleFailure");
        QVERIFY2(text.startsWith(f.fileName() + ": "), qPrintable(text));
        QVERIFY2(text.contains("runs[0]"), qPrintable(text));
    }

    void exportWritesTheRuns()
    {
        test::Workbench b(*m_store, *m_settings);
        if (TrajectoryStore(m_store->database()).runs().value().isEmpty())
            QSKIP("needs the import test's runs");
        QSignalSpy exported(b.window.bundles(), &ui::BundleTransfers::exported);
        const QString out = m_dir.filePath("out.json");
        b.window.bundles()->startExport(RunSelection{}, out, "from the workbench");
        QVERIFY(exported.wait(20000));
        auto bundle = readTrajectoryBundleFile(out);
        QVERIFY2(bundle.ok(), bundle ? "" : qPrintable(bundle.error().message));
        QCOMPARE(bundle->runs.size(), 6);
        QCOMPARE(bundle->label, QString("from the workbench"));
        QVERIFY(bundle->exportedBy.startsWith("kmosaic-workbench "));
    }
};

QTEST_MAIN(TestBundleTransfers)
#include "test_bundle_transfers.moc"
