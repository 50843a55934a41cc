// The -wal/-shm defect of issue 18: this process plays the workbench (a connection kept open on the main thread, a
// worker connection opened and closed on its own thread, as the store worker and the import job do), the kmosaic
// CLI writes and reads the same file from other processes. After the close, a write of the kept connection must be
// visible to the CLI, and this process must hold no deleted -wal or -shm (see OpenFiles in core/store/Database.cpp).
#include "store/StoreWorker.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <unistd.h>

using namespace km;

namespace {

constexpr int kTimeoutMs = 20000;

Task task(const QString& id)
{
    Task t;
    t.id = id;
    t.title = QStringLiteral("Task %1").arg(id);
    t.level = 1;
    t.description = QStringLiteral("Written by %1.").arg(id);
    t.reference = QStringLiteral("import torch\n");
    t.shown = PresentationSet{Presentation::Description, Presentation::Reference};
    return t;
}

// The links in /proc/self/fd to deleted -wal or -shm files.
QStringList deletedSideFiles()
{
    QStringList out;
    const QDir fds(QStringLiteral("/proc/self/fd"));
    for (const QFileInfo& fd : fds.entryInfoList(QDir::System | QDir::NoDotAndDotDot)) {
        char buf[4096];
        const ssize_t n = ::readlink(QFile::encodeName(fd.filePath()).constData(), buf, sizeof buf - 1);
        if (n <= 0)
            continue;
        const QString target = QString::fromLocal8Bit(buf, n);
        if (target.contains(QLatin1String(" (deleted)")) &&
            (target.contains(QLatin1String("-wal")) || target.contains(QLatin1String("-shm"))))
            out.append(target);
    }
    return out;
}

}  // namespace

class TestStoreSideFiles : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    // Runs the CLI on the store; its stdout, or a failed check.
    static QByteArray cli(const QString& path, const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(KMOSAIC_CLI), QStringList{QStringLiteral("--db"), path} + args);
        if (!p.waitForFinished(kTimeoutMs) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
            qWarning("kmosaic %s failed: %s", qPrintable(args.join(' ')), p.readAllStandardError().constData());
            return {};
        }
        return p.readAllStandardOutput();
    }
    static QStringList listedIds(const QString& path)
    {
        QStringList ids;
        const QJsonDocument doc = QJsonDocument::fromJson(cli(path, {"tasks", "list", "--json"}));
        const QJsonArray rows = doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("tasks")).toArray();
        for (const QJsonValue& v : rows)
            ids.append(v.toObject().value(QStringLiteral("id")).toString());
        return ids;
    }

private Q_SLOTS:
    void keptConnectionStaysVisibleAfterAWorkerConnectionCloses()
    {
        QVERIFY(m_dir.isValid());
        const QString path = m_dir.filePath(QStringLiteral("gui.sqlite"));
        auto kept = TaskStore::open(path);
        QVERIFY(kept);
        TaskStore& store = *kept.value();
        const auto first = store.upsertTask(task("first"), "gui", {});
        QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().message));
        {
            auto worker = StoreWorker::open(path);  // opened on its thread, closed there when destroyed
            QVERIFY(worker);
        }
        {
            auto other = TaskStore::open(path);  // the import job's connection, on this thread
            QVERIFY(other);
        }
        // A CLI process writes and closes: it must not take itself for the last connection of the file.
        QVERIFY(!cli(path, {"review", "first", "--status", "in_review", "--reviewer", "cli"}).isNull());
        QVERIFY(listedIds(path).contains("first"));
        QVERIFY2(QFile::exists(path + "-wal") && QFile::exists(path + "-shm"), "the CLI removed the side files");
        QVERIFY2(deletedSideFiles().isEmpty(), qPrintable(deletedSideFiles().join(", ")));

        QVERIFY(store.upsertTask(task("second"), "gui", {}).ok());
        QVERIFY(listedIds(path).contains("second"));  // the kept connection's write reaches other processes
        QVERIFY(store.task("first").value()->status == ReviewStatus::InReview);  // and theirs reach it
        QVERIFY2(deletedSideFiles().isEmpty(), qPrintable(deletedSideFiles().join(", ")));
    }
};

QTEST_GUILESS_MAIN(TestStoreSideFiles)
#include "test_store_sidefiles.moc"
