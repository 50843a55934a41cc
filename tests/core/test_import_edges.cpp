// What an import does with files it cannot read or that are too large: the task fails with the path (and size and
// limit) in the report, never imported as if the file were absent; and a task.toml lists all its type errors.
#include "../common/CliRun.h"
#include "../common/SampleTasks.h"
#include "curate/Importer.h"
#include "curate/JsonlFormat.h"
#include "curate/TaskFolder.h"

#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace km;

namespace {
void writeFile(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// A valid task folder <parent>/<id> with description, reference and spec.
QString writeGoodTask(const QString& parent, const QString& id)
{
    Task t = test::richTask(id);
    t.description = QStringLiteral("Scale then clamp at zero.\n");
    t.spec = QStringLiteral("$$y = \\max(0, s x)$$\n");
    if (!writeTaskFolder(t, parent).ok())
        return {};
    return QDir(parent).filePath(id);
}

QString issuesText(const QList<ImportIssue>& issues)
{
    QStringList l;
    for (const ImportIssue& i : issues)
        l.append(i.format());
    return l.join('\n');
}

const ImportIssue* errorAbout(const QList<ImportIssue>& issues, const QString& file)
{
    for (const ImportIssue& i : issues)
        if (i.severity == ImportIssue::Severity::Error && i.file == file)
            return &i;
    return nullptr;
}
}  // namespace

class TestImportEdges : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void unreadableFileFailsTheTask_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("says");
        QTest::newRow("spec.md links to itself") << "spec.md"
                                                 << "loop"
                                                 << "symbolic link that loops";
        QTest::newRow("description.md links nowhere") << "description.md"
                                                      << "dangling"
                                                      << "does not exist";
        QTest::newRow("reference.py is a folder") << "reference.py"
                                                  << "folder"
                                                  << "it is a folder";
        QTest::newRow("spec.md is a pipe") << "spec.md"
                                           << "fifo"
                                           << "not a regular file";
        QTest::newRow("task.toml links to itself") << "task.toml"
                                                   << "loop"
                                                   << "symbolic link that loops";
    }
    void unreadableFileFailsTheTask()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const QString folder = writeGoodTask(dir.path(), "broken");
        QVERIFY(!folder.isEmpty());
        writeGoodTask(dir.path(), "fine");
        const QString path = folder + "/" + file;
        QVERIFY(QFile::remove(path));
        if (kind == "loop")
            QVERIFY(QFile::link(path, path));
        else if (kind == "dangling")
            QVERIFY(QFile::link(folder + "/gone.md", path));
        else if (kind == "folder")
            QVERIFY(QDir().mkpath(path));
        else
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);

        const ImportBatch batch = readTasks(dir.path(), TaskFormat::Folder);
        QCOMPARE(batch.tasks.size(), 1);
        QCOMPARE(batch.tasks.first().id, QString("fine"));
        QCOMPARE(batch.skipped, 1);
        const ImportIssue* e = errorAbout(batch.issues, path);
        QVERIFY2(e && e->reason.contains(path) && e->reason.contains(says), qPrintable(issuesText(batch.issues)));

        // The command line fails and names the file.
        QTemporaryDir store;
        const auto r = test::runKmosaic({"--db", store.filePath("s.sqlite"), "import", dir.path()}, 60000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(path + ": error: cannot read " + path) && r.err.contains(says), qPrintable(r.err));
        QVERIFY2(r.out.contains("1 new, 0 updated, 0 unchanged, 1 skipped, 1 error(s)"), qPrintable(r.out));
    }

    void unreadablePermissionsFailTheTask()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: permission bits do not stop root from reading");
        QTemporaryDir dir;
        const QString folder = writeGoodTask(dir.path(), "locked");
        const QString path = folder + "/spec.md";
        QVERIFY(QFile::setPermissions(path, QFileDevice::WriteOwner));
        QList<ImportIssue> issues;
        QVERIFY(!readTaskFolder(folder, &issues).has_value());
        const ImportIssue* e = errorAbout(issues, path);
        QVERIFY2(e && e->reason.contains("cannot read " + path), qPrintable(issuesText(issues)));
    }

    void oversizeFileFailsWithSizeAndLimit()
    {
        QTemporaryDir dir;
        const QString folder = writeGoodTask(dir.path(), "huge");
        const QString path = folder + "/description.md";
        const QByteArray big(3 * 1024 * 1024 + 5, 'x');
        writeFile(path, big);
        QList<ImportIssue> issues;
        QVERIFY(!readTaskFolder(folder, &issues).has_value());
        const ImportIssue* e = errorAbout(issues, path);
        QVERIFY2(e && e->reason.contains(QString::number(big.size()) + " bytes") && e->reason.contains("3.0 MiB") &&
                     e->reason.contains("limit of 1024 KiB"),
                 qPrintable(issuesText(issues)));

        ImportOptions roomy;
        roomy.maxFileBytes = 4 * 1024 * 1024;
        issues.clear();
        const auto task = readTaskFolder(folder, &issues, roomy);
        QVERIFY2(task.has_value(), qPrintable(issuesText(issues)));
        QCOMPARE(task->description.size(), big.size());

        // kmosaic import: the same default, and --max-file-kb to raise it.
        QTemporaryDir store;
        const QString db = store.filePath("s.sqlite");
        auto r = test::runKmosaic({"--db", db, "import", folder}, 60000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(path) && r.err.contains("limit of 1024 KiB"), qPrintable(r.err));
        r = test::runKmosaic({"--db", db, "import", folder, "--max-file-kb", "4096"}, 60000);
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("1 new"), qPrintable(r.out));
        r = test::runKmosaic({"--db", db, "import", folder, "--max-file-kb", "2"}, 60000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("limit of 2 KiB"), qPrintable(r.err));
    }

    void oversizeJsonlLineFailsOnlyThatLine()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("tasks.jsonl");
        Task big = test::richTask("big");
        big.description = QString(5000, QLatin1Char('d'));
        const QByteArray lines = taskToJsonLine(test::richTask("first")) + "\n" + taskToJsonLine(big) + "\n" +
                                 taskToJsonLine(test::richTask("third")) + "\n";
        writeFile(path, lines);
        ImportOptions small;
        small.maxLineBytes = 4 * 1024;
        const ImportBatch batch = readTasksJsonl(path, small);
        QCOMPARE(batch.tasks.size(), 2);
        QCOMPARE(batch.tasks.at(0).id, QString("first"));
        QCOMPARE(batch.tasks.at(1).id, QString("third"));
        QCOMPARE(batch.skipped, 1);
        const ImportIssue* e = errorAbout(batch.issues, path);
        QVERIFY2(e && e->line == 2 && e->reason.contains(QString::number(taskToJsonLine(big).size()) + " bytes") &&
                     e->reason.contains("limit of 4 KiB per line"),
                 qPrintable(issuesText(batch.issues)));
        QCOMPARE(readTasksJsonl(path).tasks.size(), 3);  // the default limit (4 MiB) takes all three
    }

    void unreadableKernelBenchFileIsReported()
    {
        QTemporaryDir dir;
        const QString level = dir.filePath("KernelBench/level1");
        QVERIFY(QDir().mkpath(level));
        writeFile(level + "/1_Good.py", test::sampleReference().toUtf8());
        QVERIFY(QFile::link(level + "/2_Loop.py", level + "/2_Loop.py"));
        writeFile(level + "/3_Huge.py", QByteArray(2 * 1024 * 1024, '#'));
        const ImportBatch batch = readTasks(dir.path(), TaskFormat::KernelBench);
        QCOMPARE(batch.tasks.size(), 1);
        QCOMPARE(batch.skipped, 2);
        const ImportIssue* loop = errorAbout(batch.issues, level + "/2_Loop.py");
        QVERIFY2(loop && loop->reason.contains("loops"), qPrintable(issuesText(batch.issues)));
        const ImportIssue* huge = errorAbout(batch.issues, level + "/3_Huge.py");
        QVERIFY2(huge && huge->reason.contains("limit of 1024 KiB"), qPrintable(issuesText(batch.issues)));
    }

    void everyTypeErrorOfTaskTomlIsReported()
    {
        QTemporaryDir dir;
        const QString folder = writeGoodTask(dir.path(), "typos");
        const QByteArray toml = "id = \"typos\"\n"   // 1
                                "title = 5\n"        // 2: a number, not a string
                                "level = \"one\"\n"  // 3: a string, not an integer
                                "categories = [\"activation\"]\n"
                                "tags = \"memory-bound\"\n"  // 5: a string, not an array
                                "dtype = \"float32\"\n"
                                "shown = [\"description\"]\n";
        writeFile(folder + "/task.toml", toml);
        QList<ImportIssue> issues;
        QVERIFY(!readTaskFolder(folder, &issues).has_value());
        QList<QPair<int, QString>> errors;
        for (const ImportIssue& i : issues) {
            QCOMPARE(i.severity, ImportIssue::Severity::Error);
            QCOMPARE(i.file, folder + "/task.toml");
            errors.append({i.line, i.reason});
        }
        std::sort(errors.begin(), errors.end());
        QCOMPARE(errors.size(), 3);
        QCOMPARE(errors.at(0), qMakePair(2, QString("'title': expected a string")));
        QCOMPARE(errors.at(1), qMakePair(3, QString("'level': expected an integer 1-4")));
        QCOMPARE(errors.at(2), qMakePair(5, QString("'tags': expected an array of strings")));
    }

    void everyBadValueOfTaskTomlIsReported()
    {
        QTemporaryDir dir;
        const QString folder = writeGoodTask(dir.path(), "values");
        writeFile(folder + "/task.toml", "id = \"values\"\ntitle = \"t\"\nlevel = 1\n"
                                         "[tolerance]\natol = nan\nrtol = inf\n"
                                         "[[configs]]\nname = \"when\"\nat = 2024-01-01\n");
        QList<ImportIssue> issues;
        QVERIFY(!readTaskFolder(folder, &issues).has_value());
        QStringList reasons;
        for (const ImportIssue& i : issues)
            reasons.append(QStringLiteral("%1: %2").arg(i.line).arg(i.reason));
        reasons.sort();
        QCOMPARE(reasons, QStringList({"5: 'tolerance.atol': inf and nan are not allowed",
                                       "6: 'tolerance.rtol': inf and nan are not allowed",
                                       "9: 'configs[0].at': dates and times are not used in task files"}));
    }
};

QTEST_GUILESS_MAIN(TestImportEdges)
#include "test_import_edges.moc"
