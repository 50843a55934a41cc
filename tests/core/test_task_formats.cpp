// The task folder format and JSONL read and write tasks losslessly, and report malformed files with file and line.
#include "../common/SampleTasks.h"
#include "curate/JsonlFormat.h"
#include "curate/TaskFolder.h"
#include "curate/TaskToml.h"
#include "model/TaskVariant.h"

#include <QtTest>

using namespace km;

namespace {
void writeFile(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QString issuesText(const QList<ImportIssue>& issues)
{
    QStringList l;
    for (const ImportIssue& i : issues)
        l.append(i.format());
    return l.join('\n');
}
}  // namespace

class TestTaskFormats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void folderRoundTripIsLossless()
    {
        QTemporaryDir dir;
        const Task t = test::richTask();
        QVERIFY(writeTaskFolder(t, dir.path()).ok());
        QList<ImportIssue> issues;
        const auto back = readTaskFolder(dir.filePath(t.id), &issues);
        QVERIFY2(back.has_value(), qPrintable(issuesText(issues)));
        QCOMPARE(back->contentHash(), t.contentHash());
        QVERIFY(*back == t);
        // Types survive: an integral float stays a float, an integer an integer.
        QCOMPARE(back->configs[0].values.value("scale").typeId(), int(QMetaType::Double));
        QCOMPARE(back->configs[0].values.value("dim").typeId(), int(QMetaType::LongLong));
    }

    void folderWritesOnlyPresentFilesAndRemovesStaleOnes()
    {
        QTemporaryDir dir;
        Task t = test::richTask();
        QVERIFY(writeTaskFolder(t, dir.path()).ok());
        QVERIFY(QFile::exists(dir.filePath(t.id + "/spec.md")));
        t.spec.clear();
        t.shown = PresentationSet{Presentation::Description};
        QVERIFY(writeTaskFolder(t, dir.path()).ok());
        QVERIFY(!QFile::exists(dir.filePath(t.id + "/spec.md")));
        QList<ImportIssue> issues;
        const auto back = readTaskFolder(dir.filePath(t.id), &issues);
        QVERIFY(back.has_value());
        QVERIFY(*back == t);
    }

    void writtenTomlIsReadable()
    {
        const QByteArray toml = writeTaskToml(test::richTask());
        QVERIFY(toml.startsWith("id = \"scaled-relu\"\n"));
        QVERIFY(toml.contains("\n[[configs]]\nname = \"small\"\n"));
        QVERIFY(toml.contains("scale = 2.0\n"));
        QVERIFY(toml.contains("atol = 1e-05\n"));
    }

    void jsonlRoundTripIsLossless()
    {
        QTemporaryDir dir;
        Task a = test::richTask("a-task");
        Task b = test::richTask("b-task");
        b.source = TaskSource{SourceKind::Bundled, 0, 0, {}, {}, 0};
        b.tolerance.reset();
        b.configs.clear();
        const QString path = dir.filePath("tasks.jsonl");
        QVERIFY(writeTasksJsonl({a, b}, path).ok());
        const ImportBatch batch = readTasksJsonl(path);
        QVERIFY2(batch.issues.isEmpty(), qPrintable(issuesText(batch.issues)));
        QCOMPARE(batch.tasks.size(), 2);
        QVERIFY(batch.tasks[0] == a);
        QVERIFY(batch.tasks[1] == b);
    }

    void malformedToml_data()
    {
        QTest::addColumn<QByteArray>("toml");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("reasonPart");
        const QByteArray head = "id = \"t\"\ntitle = \"T\"\n";
        QTest::newRow("syntax") << head + "level = = 1\n" << 3 << "";
        QTest::newRow("wrong type") << head + "level = 1\nshown = [\"reference\"]\ndtype = 32\n" << 5 << "'dtype'";
        QTest::newRow("unknown key") << head + "level = 1\nshown = [\"reference\"]\nshwon = []\n" << 5 << "unknown key";
        QTest::newRow("bad status") << head + "level = 1\nstatus = \"done\"\nshown = [\"reference\"]\n"
                                    << 4 << "status";
        QTest::newRow("config value")
            << head + "level = 1\nshown = [\"reference\"]\n\n[[configs]]\nname = \"s\"\nx = {a = 1}\n"
            << 8 << "configs[0].x";
        QTest::newRow("config without name") << head + "level = 1\nshown = [\"reference\"]\n[[configs]]\nn = 1\n"
                                             << 5 << "configs[0].name";
        QTest::newRow("level out of range") << head + "level = 9\nshown = [\"reference\"]\n" << 3 << "level";
        QTest::newRow("shown absent") << head + "level = 1\nshown = [\"spec\"]\n" << 4 << "shows 'spec'";
        QTest::newRow("config key not a constant")
            << head + "level = 1\nshown = [\"reference\"]\n[[configs]]\nname = \"s\"\nnot_there = 1\n"
            << 7 << "not a module-level constant";
        QTest::newRow("date") << head + "level = 1\nwhen = 2024-01-01\n" << 4 << "dates";
    }
    void malformedToml()
    {
        QFETCH(QByteArray, toml);
        QFETCH(int, line);
        QFETCH(QString, reasonPart);
        QTemporaryDir dir;
        writeFile(dir.filePath("t/task.toml"), toml);
        writeFile(dir.filePath("t/reference.py"), test::sampleReference().toUtf8());
        QList<ImportIssue> issues;
        QVERIFY(!readTaskFolder(dir.filePath("t"), &issues).has_value());
        QVERIFY(!issues.isEmpty());
        const ImportIssue& e = issues.first();
        QCOMPARE(e.severity, ImportIssue::Severity::Error);
        QCOMPARE(e.file, dir.filePath("t/task.toml"));
        QVERIFY2(e.reason.contains(reasonPart), qPrintable(e.format()));
        QCOMPARE(e.line, line);
    }

    void invalidUtf8IsAnError()
    {
        QTemporaryDir dir;
        const Task t = test::richTask("utf");
        QVERIFY(writeTaskFolder(t, dir.path()).ok());
        writeFile(dir.filePath("utf/description.md"), QByteArray("caf\xe9 latin-1\n"));
        QList<ImportIssue> issues;
        QVERIFY(!readTaskFolder(dir.filePath("utf"), &issues).has_value());
        QVERIFY(issuesText(issues).contains("description.md is not valid UTF-8"));
    }

    void missingReferenceIsOnlyAWarning()
    {
        QTemporaryDir dir;
        Task t = test::richTask("spec-only");
        t.reference.clear();
        t.configs.clear();
        QVERIFY(writeTaskFolder(t, dir.path()).ok());
        QList<ImportIssue> issues;
        const auto back = readTaskFolder(dir.filePath("spec-only"), &issues);
        QVERIFY(back.has_value());
        QCOMPARE(issues.size(), 1);
        QCOMPARE(issues.first().severity, ImportIssue::Severity::Warning);
        QVERIFY(issues.first().reason.contains("cannot be verified"));
    }
};

QTEST_GUILESS_MAIN(TestTaskFormats)
#include "test_task_formats.moc"
