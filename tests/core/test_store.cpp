// The SQLite task store: schema and migrations, and refusal of files it must not touch.
#include "StoreTestSupport.h"

class TestStore : public QObject, public StoreFiles {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void openCreatesFileWithCurrentSchema()
    {
        const QString path = m_dir.filePath("nested/folder/new.sqlite");
        QVERIFY(!QFile::exists(path));
        auto store = openStore(path);
        QVERIFY(store);
        QVERIFY(QFileInfo(path).isFile());
        QCOMPARE(store->schemaVersion(), store::latestSchemaVersion());
        QCOMPARE(scalar(store->database(), "PRAGMA user_version"), qint64(store::latestSchemaVersion()));
        auto mode = rows(store->database(), "PRAGMA journal_mode");
        VERIFY_OK(mode);
        QCOMPARE(mode->first().value(0).toString(), QString("wal"));
        QCOMPARE(scalar(store->database(), "PRAGMA foreign_keys"), qint64(1));
        QCOMPARE(scalar(store->database(), "PRAGMA synchronous"), qint64(2));  // FULL
        // Foreign keys are enforced, not just reported as on.
        QVERIFY(!store->database().exec("INSERT INTO reviews(task_id, reviewer, at, from_status, to_status) "
                                        "VALUES ('missing', 'x', 'now', 'draft', 'accepted')"));
        QCOMPARE(store->count().value(), 0);
    }

    void migratesV1File()
    {
        // Build the file exactly as release 1 left it, from the SQL fixture.
        const QString path = newPath();
        {
            QFile sql(KMOSAIC_TEST_DATA "/store-v1.sql");
            QVERIFY(sql.open(QIODevice::ReadOnly | QIODevice::Text));
            const QStringList statements =
                QString::fromUtf8(sql.readAll())
                    .split(QRegularExpression("^-- ;;$", QRegularExpression::MultilineOption));
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "v1-fixture");
            db.setDatabaseName(path);
            QVERIFY(db.open());
            int executed = 0;
            for (const QString& chunk : statements) {
                QString code;
                for (const QString& line : chunk.split('\n'))
                    if (!line.startsWith("--"))
                        code += line + '\n';
                if (code.trimmed().isEmpty())
                    continue;
                QSqlQuery q(db);
                QVERIFY2(q.exec(code), qPrintable(q.lastError().text() + "\n" + code));
                ++executed;
            }
            QCOMPARE(executed, 29);
            db.close();
        }
        QSqlDatabase::removeDatabase("v1-fixture");

        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), store::latestSchemaVersion());
        QCOMPARE(store->count().value(), 3);

        Task relu = makeTask("old-relu", "Legacy ReLU activation", 1, {"activation", "elementwise"},
                             {P::Description, P::Reference}, S::Accepted,
                             "Apply the rectified linear unit to every element of a vector.",
                             "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                             "        return torch.relu(x)\n");
        relu.tags = {"legacy", "v1"};
        relu.forbiddenOps = {"torch.relu", "torch.clamp"};
        relu.tolerance = Tolerance{0.0001, 0.0002};
        relu.flopsFormula = "N";
        relu.bytesFormula = "8*N";
        relu.configs = {TaskConfig{"large", {{"N", qint64(1048576)}}},
                        TaskConfig{"small", {{"N", qint64(1024)}, {"alpha", 0.5}}}};
        Task softmax = makeTask("old-softmax", "Legacy row softmax", 2, {"softmax"}, {P::Description}, S::NeedsChanges,
                                "Numerically stable softmax over the rows of a matrix.",
                                "import torch\n\ndef forward(x):\n    return torch.softmax(x, dim=1)\n",
                                "$$y_i = e^{x_i} / \\sum_j e^{x_j}$$");
        softmax.dtype = "float16";
        softmax.source = TaskSource{SourceKind::KernelBench, 1, 23, "23_Softmax", {}, 0};
        Task layernorm =
            makeTask("old-layernorm", "Legacy layer normalization", 1, {"normalization"}, {P::Spec}, S::Draft, "",
                     "import torch.nn.functional as F\n\ndef forward(x):\n"
                     "    return F.layer_norm(x, (768,))\n",
                     "Normalize each row to zero mean and unit variance.");
        layernorm.tags = {"imported"};
        layernorm.source = TaskSource{SourceKind::File, 0, 0, {}, "/data/legacy.jsonl", 3};
        layernorm.configs = {TaskConfig{"base", {{"D", qint64(768)}, {"affine", true}, {"eps", 1e-05}}}};

        for (const Task& expected : {relu, softmax, layernorm}) {
            auto t = store->task(expected.id);
            VERIFY_OK(t);
            QVERIFY2(t.value().has_value(), qPrintable(expected.id));
            QCOMPARE(dump(*t.value()), dump(expected));
            const auto hash =
                rows(store->database(), "SELECT content_hash FROM tasks WHERE id = '" + expected.id + "'");
            QCOMPARE(hash->first().value(0).toByteArray(), expected.contentHash());
            // The hash v1 stored is the hash this release computes: an identical re-import changes nothing.
            QCOMPARE(store->upsertTask(expected, "test", "re-import").value(), UpsertOutcome::Unchanged);
        }

        auto history = store->reviews("old-softmax");
        VERIFY_OK(history);
        QCOMPARE(history->size(), 1);
        QCOMPARE(line(history->first()), QString("2 | old-softmax | dave | 2024-05-04T14:00:00.000Z | draft | "
                                                 "needs_changes | unstable | subtract the row maximum first"));
        auto audit = store->audit("task", "old-relu");
        VERIFY_OK(audit);
        QCOMPARE(audit->size(), 2);
        QCOMPARE(line(audit->at(1)), QString("carol | task | old-relu | status | checked on A100 | {\"comment\":"
                                             "\"clean\",\"from\":\"draft\",\"review_id\":1,\"to\":\"accepted\"}"));

        // Full-text search covers rows written before the index existed: title, description, spec, reference.
        const QList<std::pair<QString, QStringList>> searches{
            {"legacy", {"old-layernorm", "old-relu", "old-softmax"}},
            {"row softmax", {"old-softmax"}},
            {"rectified", {"old-relu"}},
            {"variance", {"old-layernorm"}},
            {"layer_norm", {"old-layernorm"}},
            {"torch.softmax dim", {"old-softmax"}},
            {"torch.relu", {"old-relu"}},
        };
        for (const auto& [text, expected] : searches) {
            TaskFilter f;
            f.text = text;
            auto found = store->summaries(f);
            VERIFY_OK(found);
            QStringList got = ids(found.value());
            got.sort();
            QVERIFY2(got == expected, qPrintable(text + ": " + got.join(',')));
        }

        const QStringList tables{"runs", "solutions", "tasks_fts", "trajectory_steps", "verdicts"};
        for (const QString& table : tables)
            QVERIFY2(scalar(store->database(), "SELECT count(*) FROM sqlite_master WHERE name = '" + table + "'") == 1,
                     qPrintable(table));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM pragma_table_info('reviews') "
                                           "WHERE name = 'solution_id'"),
                 qint64(1));
        QCOMPARE(rows(store->database(), "PRAGMA integrity_check")->first().value(0).toString(), QString("ok"));
        QVERIFY(rows(store->database(), "PRAGMA foreign_key_check")->isEmpty());

        // A migrated row's index entry follows later edits.
        softmax.description = "Stable softmax, subtracting the maximum of each row.";
        QCOMPARE(store->upsertTask(softmax, "test", "edit").value(), UpsertOutcome::Updated);
        TaskFilter f;
        f.text = "numerically";
        QVERIFY(store->summaries(f)->isEmpty());
        f.text = "subtracting";
        QCOMPARE(ids(store->summaries(f).value()), QStringList{"old-softmax"});
    }

    void migratesFromOlderVersion_data()
    {
        QTest::addColumn<int>("from");
        // Every version a store can be at: the ones the migrations reach (two branches may number theirs apart).
        for (const store::Migration& m : store::migrations())
            if (m.version < store::latestSchemaVersion())
                QTest::addRow("v%d", m.version) << m.version;
    }
    void migratesFromOlderVersion()
    {
        QFETCH(int, from);
        const QString path = newPath();
        const QList<Task> written{
            makeTask("kept-a", "Tanh activation", 1, {"activation"}, {P::Description}, S::Draft,
                     "Hyperbolic tangent of each element.", "y = torch.tanh(x)"),
            makeTask("kept-b", "Max pooling", 2, {"pooling", "fused"}, {P::Reference, P::Spec}, S::InReview, "",
                     "y = torch.nn.functional.max_pool2d(x, 2)", "Window maximum."),
        };
        {
            auto db = store::Database::open(path, from);
            VERIFY_OK(db);
            QCOMPARE(db.value()->schemaVersion(), from);
            QCOMPARE(scalar(*db.value(), "SELECT count(*) FROM sqlite_master WHERE name = 'tasks_fts'"),
                     qint64(from >= 2 ? 1 : 0));
            TaskStore old(std::move(db).value());
            VERIFY_OK(old.upsertTasks(written, "old", "seed"));
            VERIFY_OK(old.review("kept-b", S::Accepted, "erin", "fine", ""));
        }
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), store::latestSchemaVersion());
        for (Task t : written) {
            if (t.id == "kept-b")
                t.status = S::Accepted;
            QCOMPARE(dump(store->task(t.id).value().value_or(Task{})), dump(t));
        }
        QCOMPARE(store->reviews("kept-b")->size(), 1);
        QCOMPARE(store->audit().value().size(), 3);
        for (const char* text : {"tanh", "hyperbolic", "max_pool2d", "window"}) {
            TaskFilter f;
            f.text = text;
            QCOMPARE(store->summaries(f).value().size(), 1);
        }
    }

    void refusesNewerSchema_data()
    {
        QTest::addColumn<bool>("walFile");
        QTest::newRow("store file (WAL)") << true;
        QTest::newRow("rollback-journal file") << false;
    }
    void refusesNewerSchema()
    {
        QFETCH(bool, walFile);
        const QString path = newPath();
        const int newer = store::latestSchemaVersion() + 1;
        if (walFile) {
            auto store = openStore(path);
            QVERIFY(store);
            VERIFY_OK(store->upsertTask(filterTasks().first(), "test", "seed"));
            VERIFY_OK(store->database().exec(QStringLiteral("PRAGMA user_version=%1").arg(newer)));
        } else {
            {
                QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "newer");
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                QVERIFY(q.exec("CREATE TABLE future(x TEXT)"));
                QVERIFY(q.exec("INSERT INTO future VALUES ('from a later release')"));
                QVERIFY(q.exec(QStringLiteral("PRAGMA user_version=%1").arg(newer)));
                db.close();
            }
            QSqlDatabase::removeDatabase("newer");
        }
        QVERIFY(!QFile::exists(path + "-wal"));
        const QByteArray before = fileBytes(path);
        QVERIFY(before.startsWith("SQLite format 3"));

        auto store = TaskStore::open(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::Unsupported);
        QVERIFY2(store.error().message.contains(QString::number(newer)), qPrintable(store.error().message));
        QVERIFY(fileBytes(path) == before);
        QVERIFY(!QFile::exists(path + "-wal"));
    }

    void refusesNonDatabaseFile_data()
    {
        QTest::addColumn<QByteArray>("content");
        QByteArray random(8192, '\0');
        QRandomGenerator gen(42);
        for (char& c : random)
            c = char(gen.bounded(256));
        QTest::newRow("random bytes") << random;
        QTest::newRow("text") << QByteArray("id,title\nrelu,ReLU\n").repeated(50);
    }
    void refusesNonDatabaseFile()
    {
        QFETCH(QByteArray, content);
        const QString path = newPath();
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(content), content.size());
        }
        auto store = TaskStore::open(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::Database);
        QVERIFY2(store.error().message.contains(path) && store.error().message.contains("not a"),
                 qPrintable(store.error().message));
        QVERIFY(fileBytes(path) == content);
        QVERIFY(!QFile::exists(path + "-wal"));
    }

    void refusesBadPaths_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<ErrorCode>("code");
        QTest::newRow("folder") << m_dir.path() << ErrorCode::InvalidInput;
        QTest::newRow("empty") << QString() << ErrorCode::InvalidInput;
        QTest::newRow("under a file") << m_dir.filePath("plain-file/store.sqlite") << ErrorCode::Io;
    }
    void refusesBadPaths()
    {
        QFETCH(QString, path);
        QFETCH(ErrorCode, code);
        QFile plain(m_dir.filePath("plain-file"));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        auto store = TaskStore::open(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, code);
        QVERIFY(!store.error().message.isEmpty());
        QCOMPARE(QFileInfo(m_dir.filePath("plain-file")).size(), qint64(0));
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "test_store.moc"
