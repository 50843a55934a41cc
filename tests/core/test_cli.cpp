// The kmosaic binary end to end: every command, its output forms, its errors and exit codes, and store locations.
#include <QtTest>

namespace {
struct Run {
    int code = -1;
    QString out;
    QString err;
};

Run kmosaic(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(KMOSAIC_CLI), args);
    if (!p.waitForFinished(60000))
        qFatal("kmosaic %s did not finish", qPrintable(args.join(' ')));
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}
const QString kData = QStringLiteral(KMOSAIC_TEST_DATA);
}  // namespace

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_db;
    QStringList db(const QStringList& rest) const { return QStringList{"--db", m_db} + rest; }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("cli.sqlite");
        const Run r = kmosaic(db({"import", kData + "/kernelbench"}));
        QCOMPARE(r.code, 1);  // two malformed files in the fixture
        QVERIFY2(r.out.contains("5 new, 0 updated, 0 unchanged, 2 skipped"), qPrintable(r.out));
        QVERIFY(r.err.contains("7_Missing_model.py: error:"));
    }

    void versionAndHelp()
    {
        const Run v = kmosaic({"--version"});
        QCOMPARE(v.code, 0);
        QVERIFY(QRegularExpression("^kmosaic \\d+\\.\\d+\\.\\d+ \\(store schema \\d+\\)\n$").match(v.out).hasMatch());
        const Run h = kmosaic({"--help"});
        QCOMPARE(h.code, 0);
        for (const char* word : {"import", "export", "tasks list", "tasks show", "review", "--db"})
            QVERIFY2(h.out.contains(word), word);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << "no command";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << "unknown command 'frobnicate'";
        QTest::newRow("tasks without sub") << QStringList{"tasks"} << "needs list, show or history";
        QTest::newRow("bad status filter")
            << QStringList{"tasks", "list", "--status", "done"} << "unknown status 'done'";
        QTest::newRow("bad level") << QStringList{"tasks", "list", "--level", "7"} << "level '7'";
        QTest::newRow("bad category") << QStringList{"tasks", "list", "--category", "gemmm"} << "unknown category";
        QTest::newRow("unknown option") << QStringList{"tasks", "list", "--colour"} << "Unknown option";
        QTest::newRow("review without status") << QStringList{"review", "kb-l1-019-relu"} << "--status must be";
        QTest::newRow("db without path") << QStringList{"--db"} << "--db needs a path";
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = kmosaic(args.value(0) == "--db" ? args : db(args));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void listFilters_data()
    {
        QTest::addColumn<QStringList>("filters");
        QTest::addColumn<QStringList>("ids");
        QTest::newRow("all") << QStringList{}
                             << QStringList{"kb-l1-001-square-matrix-multiplication", "kb-l1-019-relu",
                                            "kb-l1-023-softmax", "kb-l2-012-conv2d-batchnorm-relu",
                                            "kb-l3-002-small-mlp"};
        QTest::newRow("level 2,3") << QStringList{"--level", "2,3"}
                                   << QStringList{"kb-l2-012-conv2d-batchnorm-relu", "kb-l3-002-small-mlp"};
        QTest::newRow("category") << QStringList{"--category", "activation"}
                                  << QStringList{"kb-l1-019-relu", "kb-l2-012-conv2d-batchnorm-relu",
                                                 "kb-l3-002-small-mlp"};
        QTest::newRow("query in code") << QStringList{"--query", "matmul"}
                                       << QStringList{"kb-l1-001-square-matrix-multiplication"};
        QTest::newRow("query and level") << QStringList{"--query", "relu", "--level", "1"}
                                         << QStringList{"kb-l1-019-relu"};
        QTest::newRow("presentation") << QStringList{"--presentation", "spec"} << QStringList{};
        QTest::newRow("limit") << QStringList{"--limit", "1"} << QStringList{"kb-l1-001-square-matrix-multiplication"};
    }
    void listFilters()
    {
        QFETCH(QStringList, filters);
        QFETCH(QStringList, ids);
        const Run r = kmosaic(db(QStringList{"tasks", "list", "--json"} + filters));
        QCOMPARE(r.code, 0);
        const QJsonArray rows = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QStringList got;
        for (const QJsonValue& v : rows)
            got.append(v.toObject().value("id").toString());
        QCOMPARE(got, ids);
        const Run table = kmosaic(db(QStringList{"tasks", "list"} + filters));
        QCOMPARE(table.code, 0);
        QVERIFY(table.out.startsWith("ID "));
        QVERIFY(table.out.endsWith(QString("%1 task(s)\n").arg(ids.size())));
        for (const QString& id : ids)
            QVERIFY(table.out.contains(id));
    }

    void showTask()
    {
        const Run r = kmosaic(db({"tasks", "show", "kb-l1-019-relu"}));
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("kb-l1-019-relu  ReLU\n"));
        QVERIFY(r.out.contains("== reference.py ==\nimport torch"));
        QVERIFY(r.out.contains("tolerance: atol 0.0001, rtol 0.0001 (dtype default)"));
        const Run j = kmosaic(db({"tasks", "show", "kb-l1-019-relu", "--json"}));
        QCOMPARE(j.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(j.out.toUtf8()).object();
        QCOMPARE(o.value("id").toString(), QString("kb-l1-019-relu"));
        QCOMPARE(o.value("source").toObject().value("problem").toInt(), 19);
        const Run missing = kmosaic(db({"tasks", "show", "no-such-task"}));
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains("no task with id 'no-such-task'"));
    }

    void reviewIsRecordedWithHistory()
    {
        Run r = kmosaic(db({"review", "kb-l1-023-softmax", "--status", "rejected", "--reason", "R3-degenerate",
                            "--comment", "zeros pass", "--reviewer", "ann"}));
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QString("kb-l1-023-softmax: draft -> rejected by ann\n"));
        r = kmosaic(db({"review", "kb-l1-023-softmax", "--status", "needs_changes", "--reviewer", "bob"}));
        QCOMPARE(r.code, 0);
        const Run list = kmosaic(db({"tasks", "list", "--json", "--status", "needs_changes"}));
        const QJsonArray rows = QJsonDocument::fromJson(list.out.toUtf8()).array();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows[0].toObject().value("reviewer").toString(), QString("bob"));
        const Run h = kmosaic(db({"tasks", "history", "kb-l1-023-softmax", "--json"}));
        QCOMPARE(h.code, 0);
        const QJsonArray entries = QJsonDocument::fromJson(h.out.toUtf8()).array();
        QCOMPARE(entries.size(), 3);  // created, two decisions
        QCOMPARE(entries[1].toObject().value("actor").toString(), QString("ann"));
        QCOMPARE(entries[1].toObject().value("reason").toString(), QString("R3-degenerate"));
        QCOMPARE(entries[1].toObject().value("detail").toObject().value("comment").toString(), QString("zeros pass"));
        QCOMPARE(entries[2].toObject().value("detail").toObject().value("from").toString(), QString("rejected"));
        const Run bad = kmosaic(db({"review", "nope", "--status", "accepted"}));
        QCOMPARE(bad.code, 1);
        QVERIFY(bad.err.contains("no task with id 'nope'"));
    }

    void exportBothFormats()
    {
        const QString folder = m_dir.filePath("out");
        Run r = kmosaic(db({"export", folder, "--level", "1"}));
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("exported 3 task(s)"));
        QVERIFY(QFile::exists(folder + "/kb-l1-019-relu/task.toml"));
        QVERIFY(QFile::exists(folder + "/kb-l1-019-relu/reference.py"));
        QVERIFY(!QFile::exists(folder + "/kb-l1-019-relu/spec.md"));
        const QString jsonl = m_dir.filePath("out.jsonl");
        r = kmosaic(db({"export", jsonl}));
        QCOMPARE(r.code, 0);
        QFile f(jsonl);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), 5);
        r = kmosaic(db({"export", m_db}));  // a file where a folder is needed
        QCOMPARE(r.code, 1);
    }

    void storeLocationFromEnvironmentAndXdg()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("KMOSAIC_DB", m_db);
        Run r = kmosaic({"tasks", "list", "--json"}, env);
        QCOMPARE(r.code, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).array().size(), 5);

        env.remove("KMOSAIC_DB");
        env.insert("XDG_DATA_HOME", m_dir.filePath("xdg"));
        r = kmosaic({"import", kData + "/malformed-tasks/good-one"}, env);
        QCOMPARE(r.code, 0);
        QVERIFY(QFile::exists(m_dir.filePath("xdg/kmosaic/kmosaic.sqlite")));
    }

    void unusableStoreIsAClearError()
    {
        const QString junk = m_dir.filePath("junk.sqlite");
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        const Run r = kmosaic({"--db", junk, "tasks", "list"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("is not a KernelMosaic store"), qPrintable(r.err));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray(4096, 'x'));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
