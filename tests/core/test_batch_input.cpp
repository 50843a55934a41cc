// `kmosaic verify --batch` input (JSON array, JSONL, folder), its progress line and ETA, and the tally of the
// build-ahead command's output.
#include "cli/BatchInput.h"
#include "cli/BatchProgress.h"
#include "verify/Prebuilder.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace km;
using namespace km::cli;

class TestBatchInput : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString& rel, const QByteArray& text)
    {
        const QString path = m_dir.filePath(rel);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(text);
        return path;
    }

private Q_SLOTS:
    void jsonArrayResolvesFilesAgainstItsFolder()
    {
        write(QStringLiteral("a/sol.py"), "class ModelNew: pass\n");
        const QString batch = write(QStringLiteral("a/batch.json"), R"([{"task": "silu", "file": "sol.py"}])");
        const auto r = readBatch(batch);
        QVERIFY2(r.ok(), qPrintable(r.ok() ? QString() : r.error().message));
        QCOMPARE(r->size(), 1);
        QCOMPARE(r->first().taskId, QStringLiteral("silu"));
        QCOMPARE(r->first().path, m_dir.filePath(QStringLiteral("a/sol.py")));
        QCOMPARE(r->first().source, QStringLiteral("class ModelNew: pass\n"));
    }

    void jsonLinesTakeFilesOrInlineCode()
    {
        write(QStringLiteral("b/one.py"), "one\n");
        const QString batch = write(QStringLiteral("b/batch.jsonl"),
                                    "{\"task\": \"silu\", \"file\": \"one.py\"}\n\n{\"code\": \"two\\n\"}\n");
        const auto r = readBatch(batch, QStringLiteral("gelu-tanh"));
        QVERIFY2(r.ok(), qPrintable(r.ok() ? QString() : r.error().message));
        QCOMPARE(r->size(), 2);
        QCOMPARE(r->at(1).taskId, QStringLiteral("gelu-tanh"));
        QCOMPARE(r->at(1).source, QStringLiteral("two\n"));
        QCOMPARE(r->at(1).path, batch + QStringLiteral(":3"));
    }

    void folderTakesTheTaskFromEachFilesFolder()
    {
        write(QStringLiteral("c/silu/v1.py"), "1");
        write(QStringLiteral("c/silu/v2.py"), "2");
        write(QStringLiteral("c/leaky-relu/x.py"), "3");
        write(QStringLiteral("c/notes.txt"), "ignored");
        const auto r = readBatch(m_dir.filePath(QStringLiteral("c")));
        QVERIFY2(r.ok(), qPrintable(r.ok() ? QString() : r.error().message));
        QCOMPARE(r->size(), 3);
        QCOMPARE(r->at(0).taskId, QStringLiteral("leaky-relu"));
        QCOMPARE(r->at(1).taskId, QStringLiteral("silu"));
        QCOMPARE(r->at(2).source, QStringLiteral("2"));
    }

    void errorsSayWhere_data()
    {
        QTest::addColumn<QString>("rel");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("array entry without task")
            << "e1.json" << QByteArray(R"([{"file": "x.py"}])") << "entry 1: no \"task\"";
        QTest::newRow("missing file") << "e2.json" << QByteArray(R"([{"task": "t", "file": "nope.py"}])")
                                      << "nope.py does not exist";
        QTest::newRow("bad json line") << "e3.jsonl" << QByteArray("{\"task\": \"t\", \"code\": \"x\"}\n{oops\n")
                                       << "e3.jsonl:2: not a JSON object";
        QTest::newRow("file and code") << "e4.jsonl" << QByteArray(R"({"task": "t", "file": "a", "code": "b"})")
                                       << "exactly one of \"file\" and \"code\"";
        QTest::newRow("empty code") << "e5.jsonl" << QByteArray(R"({"task": "t", "code": "  "})")
                                    << "\"code\" must be a non-empty string";
        QTest::newRow("nothing listed") << "e6.json" << QByteArray("[]") << "lists no solution";
    }
    void errorsSayWhere()
    {
        QFETCH(QString, rel);
        QFETCH(QByteArray, text);
        QFETCH(QString, fragment);
        const auto r = readBatch(write(QStringLiteral("e/") + rel, text));
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(fragment), qPrintable(r.error().message));
    }

    void aLooseFileInAFolderNeedsATask()
    {
        write(QStringLiteral("d/loose.py"), "x");
        const auto r = readBatch(m_dir.filePath(QStringLiteral("d")));
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(QStringLiteral("no task")), qPrintable(r.error().message));
        QVERIFY(readBatch(m_dir.filePath(QStringLiteral("d")), QStringLiteral("silu")).ok());
    }

    void progressCountsAndEstimates()
    {
        BatchProgress p(4);
        QCOMPARE(p.etaS(), -1.0);
        p.finished(QStringLiteral("PASSED"), 10, 2);
        p.finished(QStringLiteral("COMPILE_ERROR"), 20, 0);
        QCOMPARE(p.etaS(), 20.0);
        QCOMPARE(p.measuringShare(), 0.1);
        const QString line = p.line();
        QVERIFY2(line.startsWith(QStringLiteral("[2/4] 50% |##########          |")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("1 COMPILE_ERROR, 1 PASSED")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("20s elapsed, ETA 20s")), qPrintable(line));
        p.finished(QStringLiteral("PASSED"), 30);
        p.finished(QStringLiteral("PASSED"), 40);
        QVERIFY2(!p.line().contains(QStringLiteral("ETA")), qPrintable(p.line()));
        QCOMPARE(BatchProgress::duration(190), QStringLiteral("3m10s"));
        QCOMPARE(BatchProgress::duration(3720), QStringLiteral("1h02m"));
    }

    void progressSharesPerGpu()
    {
        BatchProgress p(3);
        p.finished(QStringLiteral("PASSED"), 10, 4, QStringLiteral("GPU 0 (NVIDIA H200)"));
        p.finished(QStringLiteral("PASSED"), 15, 3, QStringLiteral("GPU 1 (NVIDIA H200)"));
        p.finished(QStringLiteral("PASSED"), 20, 5, QStringLiteral("GPU 0 (NVIDIA H200)"));
        QCOMPARE(p.gpuCount(), 2);
        QCOMPARE(p.gpuLines(),
                 (QStringList{
                     QStringLiteral("GPU 0 (NVIDIA H200): 2 verdict(s), measuring during 45.0% of the wall time"),
                     QStringLiteral("GPU 1 (NVIDIA H200): 1 verdict(s), measuring during 15.0% of the wall time")}));
        BatchProgress none(1);
        none.finished(QStringLiteral("PASSED"), 10, 4);
        QVERIFY(none.gpuLines().isEmpty());
    }

    void buildAheadOutputIsTallied()
    {
        PrebuildTally t;
        tallyPrebuildLine(QStringLiteral("built    69.1 s  /x/rmsnorm.py"), t);
        tallyPrebuildLine(QStringLiteral("FAILED    36.3 s  /x/compile_error.py  (RuntimeError: ...)"), t);
        tallyPrebuildLine(QStringLiteral("21 file(s), 1 failed, 141.8 s wall"), t);
        QCOMPARE(t.built, 1);
        QCOMPARE(t.failed, 1);
    }
};

QTEST_GUILESS_MAIN(TestBatchInput)
#include "test_batch_input.moc"
