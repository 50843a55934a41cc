// kmosaic at the store's edges: a mistyped --db never rewrites another program's file nor grows folders, --help and
// bad usage never create a store, and a read-only or full store is reported as such (real ones, in a private mount
// namespace, where this machine lets the test make one).
#include "../common/CliRun.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QtTest>

namespace {
using km::test::Run;

const QString kTasks = QStringLiteral(KMOSAIC_TASKS_DIR);

Run kmosaic(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    return km::test::runKmosaic(args, 60000, env);
}

QByteArray bytesOf(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

QStringList entriesUnder(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        out.append(it.next());
    return out;
}

// Runs `script` (sh) as root in a private mount namespace, so the mounts it makes vanish with it. Each line
// "run NAME ARGS..." runs kmosaic with ARGS, keeping its output under `results` for result(). Returns why it cannot
// run here, or an empty string once it ran.
QString runInMountNamespace(const QString& script, const QString& results)
{
    QProcess probe;
    probe.start("unshare", {"-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$0\" && umount \"$0\"", results});
    if (!probe.waitForFinished(30000) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0)
        return QStringLiteral("mounting in a private namespace (unshare -m) is not permitted here: %1")
            .arg(QString::fromUtf8(probe.readAllStandardError()).trimmed());
    const QString prelude = QStringLiteral("set -u\nrun() { n=$1; shift; \"%1\" \"$@\" >\"%2/$n.out\" 2>\"%2/$n.err\"; "
                                           "echo $? >\"%2/$n.rc\"; }\n")
                                .arg(QStringLiteral(KMOSAIC_CLI), results);
    QProcess p;
    p.start("unshare", {"-m", "sh", "-c", prelude + script});
    if (!p.waitForFinished(120000))
        qFatal("the namespaced script did not finish");
    if (p.exitCode() != 0)
        qWarning() << "namespaced script:" << p.exitCode() << p.readAllStandardError();
    return {};
}

Run result(const QString& results, const QString& name)
{
    Run r;
    bool ok = false;
    r.code = QString::fromUtf8(bytesOf(results + "/" + name + ".rc")).trimmed().toInt(&ok);
    if (!ok)
        r.code = -1;
    r.out = QString::fromUtf8(bytesOf(results + "/" + name + ".out"));
    r.err = QString::fromUtf8(bytesOf(results + "/" + name + ".err"));
    return r;
}
}  // namespace

class TestCliEdges : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QProcessEnvironment emptyHome(const QString& name) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("KMOSAIC_DB");
        env.insert("XDG_DATA_HOME", m_dir.filePath(name));
        return env;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void foreignDatabaseIsLeftByteForByte()
    {
        const QString path = m_dir.filePath("photos.sqlite");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "photos");
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec("CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT)"));
            QVERIFY(q.exec("INSERT INTO photos(name) VALUES ('cat.jpg')"));
            db.close();
        }
        QSqlDatabase::removeDatabase("photos");
        const QByteArray before = bytesOf(path);
        for (const QStringList& command : {QStringList{"tasks", "list"}, QStringList{"import", kTasks + "/silu"}}) {
            const Run r = kmosaic(QStringList{"--db", path} + command);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(path) && r.err.contains("is not a KernelMosaic store") &&
                         r.err.contains("another program") && r.err.contains("photos"),
                     qPrintable(r.err));
            QVERIFY(bytesOf(path) == before);
            QVERIFY(!QFile::exists(path + "-wal"));
            QVERIFY(!QFile::exists(path + "-shm"));
        }
    }

    void emptyFileBecomesAStore()
    {
        const QString path = m_dir.filePath("empty.sqlite");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const Run r = kmosaic({"--db", path, "tasks", "list"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("0 task(s)"));
        const QByteArray header = bytesOf(path);
        QVERIFY(header.startsWith("SQLite format 3"));
        QCOMPARE(header.mid(68, 4), QByteArray("KMOS"));
    }

    void missingFolderIsAnErrorAndGrowsNothing()
    {
        const QString path = m_dir.filePath("missing/dir/x.sqlite");
        Run r = kmosaic({"--db", path, "tasks", "list"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(path) && r.err.contains("does not exist"), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("missing")));

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("KMOSAIC_DB", path);
        r = kmosaic({"import", kTasks + "/silu"}, env);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(path), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("missing")));

        // The default location is the one folder kmosaic makes.
        r = kmosaic({"tasks", "list"}, emptyHome("xdg-default"));
        QCOMPARE(r.code, 0);
        QVERIFY(QFileInfo::exists(m_dir.filePath("xdg-default/kmosaic/kmosaic.sqlite")));
    }

    void helpCreatesNoStore_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("usage");  // a line the usage must hold
        const QList<QPair<QStringList, QString>> rows{
            {{"verify", "--help"}, "kmosaic verify --solution FILE"},
            {{"verify", "--batch", "x", "-h"}, "kmosaic verify --batch"},
            {{"agent", "run", "--help"}, "kmosaic agent run"},
            {{"tasks", "list", "--help"}, "kmosaic tasks list"},
            {{"tasks", "list", "-h"}, "--status <S>"},
            {{"tasks", "show", "--help"}, "kmosaic tasks show"},
            {{"tasks", "history", "--help"}, "kmosaic tasks history"},
            {{"import", "--help"}, "--max-file-kb <KB>"},
            {{"export", "-h"}, "kmosaic export OUT"},
            {{"review", "--help"}, "kmosaic review ID"},
            {{"verdicts", "list", "--help"}, "kmosaic verdicts list"},
            {{"verdicts", "show", "--help"}, "kmosaic verdicts show"},
            {{"gpus", "--help"}, "kmosaic gpus"},
            {{"pool", "serve", "--help"}, "kmosaic pool serve"},
            {{"pool", "status", "--help"}, "kmosaic pool status"},
            {{"agent", "resume", "--help"}, "kmosaic agent resume"},
            {{"agent", "list", "--help"}, "kmosaic agent list"},
            {{"agent", "show", "--help"}, "kmosaic agent show"},
            {{"agent", "cancel", "--help"}, "kmosaic agent cancel"},
            {{"agent", "export", "--help"}, "kmosaic agent export"},
            {{"agent", "import", "--help"}, "kmosaic agent import"},
            {{"agent", "key", "check", "--help"}, "kmosaic agent key check"},
            {{"tasks", "--help"}, "kmosaic tasks history"},
            {{"agent", "-h"}, "kmosaic agent key set"},
            {{"agent", "key", "--help"}, "kmosaic agent key delete"},
        };
        for (const auto& [args, usage] : rows)
            QTest::newRow(qPrintable(args.join(' '))) << args << usage;
    }
    void helpCreatesNoStore()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, usage);
        QTemporaryDir home;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("KMOSAIC_DB");
        env.insert("XDG_DATA_HOME", home.filePath("xdg"));
        Run r = kmosaic(args, env);
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith("Usage:\n") && r.out.contains(usage), qPrintable(r.out));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        env.insert("KMOSAIC_DB", home.filePath("named.sqlite"));
        r = kmosaic(args, env);
        QCOMPARE(r.code, 0);
        QCOMPARE(entriesUnder(home.path()), QStringList());
    }

    void usageErrorsCreateNoStore_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown option") << QStringList{"tasks", "list", "--colour"} << "Unknown option 'colour'";
        QTest::newRow("missing value") << QStringList{"tasks", "list", "--status"} << "Missing value after '--status'";
        QTest::newRow("review without status") << QStringList{"review", "relu"} << "--status must be";
        QTest::newRow("import without path") << QStringList{"import"} << "give exactly one path";
        QTest::newRow("import bad limit") << QStringList{"import", kTasks, "--max-file-kb", "0"} << "--max-file-kb";
        QTest::newRow("export without path") << QStringList{"export"} << "give exactly one output path";
        QTest::newRow("verify without solution") << QStringList{"verify", "--task", "silu"} << "give --solution";
        QTest::newRow("verify bad build jobs")
            << QStringList{"verify", "--batch", "x", "--build-jobs", "-1"} << "--build-jobs";
        QTest::newRow("verify pool and gpus")
            << QStringList{"verify", "--task", "silu", "--solution", "s.py", "--pool", "auto", "--gpus", "0"}
            << "a pool has its own";
        QTest::newRow("agent run without source") << QStringList{"agent", "run", "--task", "silu"} << "give one of";
        QTest::newRow("agent show without id") << QStringList{"agent", "show"} << "give the id of one run";
        QTest::newRow("agent export without -o") << QStringList{"agent", "export", "--all"} << "-o FILE";
        QTest::newRow("verdicts show bad id") << QStringList{"verdicts", "show", "seven"} << "a verdict id must be";
    }
    void usageErrorsCreateNoStore()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir home;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("KMOSAIC_DB");
        env.insert("XDG_DATA_HOME", home.filePath("xdg"));
        const Run r = kmosaic(args, env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(entriesUnder(home.path()), QStringList());
    }

    // A store on a read-only mount: reads work, a write says read-only with the path, nothing changes.
    void readOnlyStore()
    {
        QTemporaryDir base;
        const QString folder = base.filePath("ro");
        const QString results = base.filePath("results");
        QVERIFY(QDir().mkpath(folder) && QDir().mkpath(results));
        const QString store = folder + "/s.sqlite";
        QCOMPARE(kmosaic({"--db", store, "import", kTasks + "/silu"}).code, 0);
        const QByteArray before = bytesOf(store);
        const QString why =
            runInMountNamespace(QStringLiteral("mount --bind '%1' '%1' && mount -o remount,bind,ro '%1' || exit 90\n"
                                               "run list --db '%1/s.sqlite' tasks list\n"
                                               "run show --db '%1/s.sqlite' tasks show silu\n"
                                               "run review --db '%1/s.sqlite' review silu --status accepted\n"
                                               "run fresh --db '%1/new.sqlite' tasks list\n")
                                    .arg(folder),
                                results);
        if (!why.isEmpty())
            QSKIP(qPrintable(why));
        Run r = result(results, "list");
        QVERIFY2(r.code == 0 && r.out.contains("silu"), qPrintable(r.err));
        r = result(results, "show");
        QVERIFY2(r.code == 0 && r.out.contains("silu"), qPrintable(r.err));
        r = result(results, "review");
        QCOMPARE(r.code, 1);
        QVERIFY2(
            r.err.contains(QStringLiteral("cannot write the store %1: the file or its folder is read-only").arg(store)),
            qPrintable(r.err));
        QVERIFY(!r.err.contains("is not a KernelMosaic store"));
        r = result(results, "fresh");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(folder + "/new.sqlite") && r.err.contains("read-only"), qPrintable(r.err));
        QVERIFY(bytesOf(store) == before);
        QVERIFY(!QFile::exists(folder + "/new.sqlite"));
        QVERIFY(kmosaic({"--db", store, "tasks", "show", "silu"}).out.contains("status draft"));
    }

    // A store on a full disk (a small tmpfs): the write says the disk is full, with the path; what was stored stays.
    void fullDisk()
    {
        QTemporaryDir base;
        const QString folder = base.filePath("small");
        const QString results = base.filePath("results");
        QVERIFY(QDir().mkpath(folder) && QDir().mkpath(results));
        // A task whose description (700 KiB) cannot fit in what is left.
        const QString big = base.filePath("big-silu");
        QVERIFY(QDir().mkpath(big));
        for (const char* name : {"task.toml", "reference.py"})
            QVERIFY(QFile::copy(kTasks + "/silu/" + name, big + "/" + name));
        QByteArray toml = bytesOf(big + "/task.toml");
        toml.replace("id = \"silu\"", "id = \"big-silu\"");
        QFile tomlFile(big + "/task.toml");
        QVERIFY(tomlFile.open(QIODevice::WriteOnly | QIODevice::Truncate));
        tomlFile.write(toml);
        tomlFile.close();
        QFile description(big + "/description.md");
        QVERIFY(description.open(QIODevice::WriteOnly));
        for (int i = 0; i < 7000; ++i)
            description.write(QByteArray::number(i).rightJustified(99, '.') + '\n');
        description.close();

        const QString why =
            runInMountNamespace(QStringLiteral("mount -t tmpfs -o size=2m tmpfs '%1' || exit 90\n"
                                               "run seed --db '%1/s.sqlite' import '%2/silu'\n"
                                               "dd if=/dev/zero of='%1/spare' bs=4k count=64 2>/dev/null\n"
                                               "dd if=/dev/zero of='%1/fill' bs=4k 2>/dev/null\n"
                                               "rm '%1/spare'\n"
                                               "run big --db '%1/s.sqlite' import '%3'\n"
                                               "run list --db '%1/s.sqlite' tasks list\n"
                                               "dd if=/dev/zero of='%1/fill2' bs=4k 2>/dev/null\n"
                                               "run full --db '%1/s.sqlite' tasks list\n")
                                    .arg(folder, kTasks, big),
                                results);
        if (!why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(result(results, "seed").code, 0);
        Run r = result(results, "big");
        QCOMPARE(r.code, 1);
        const QString full = QStringLiteral("cannot write the store %1/s.sqlite: the disk is full").arg(folder);
        QVERIFY2(r.err.contains(full), qPrintable(r.err));
        r = result(results, "list");
        QVERIFY2(r.code == 0 && r.out.contains("silu") && !r.out.contains("big-silu") && r.out.contains("1 task(s)"),
                 qPrintable(r.out + r.err));
        r = result(results, "full");  // not even room for the shared-memory file a reader needs
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(full) && !r.err.contains("is not a KernelMosaic store"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliEdges)
#include "test_cli_edges.moc"
