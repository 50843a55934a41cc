// The SQLite task store on one thread: upsert and review semantics, the append-only audit log, list filters with
// full-text search, and atomic batches.
#include "StoreTestSupport.h"

class TestStoreQueries : public QObject, public StoreFiles {
    Q_OBJECT

    std::unique_ptr<TaskStore> m_filterStore;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_filterStore = openStore(newPath());
        QVERIFY(m_filterStore);
        VERIFY_OK(m_filterStore->upsertTasks(filterTasks(), "test", "fixture"));
    }

    void upsertOutcomesAndAudit()
    {
        auto store = openStore(newPath());
        QVERIFY(store);
        const QList<Task> tasks = filterTasks().mid(0, 3);
        auto first = store->upsertTasks(tasks, "alice", "import");
        VERIFY_OK(first);
        QCOMPARE(first.value(),
                 (QList<UpsertOutcome>{UpsertOutcome::Created, UpsertOutcome::Created, UpsertOutcome::Created}));
        const QList<AuditEntry> created = store->audit().value();
        QCOMPARE(created.size(), 3);
        QCOMPARE(line(created[1]), QString("alice | task | softmax-rows | created | import | {\"status\":\"draft\"}"));
        const QDateTime updatedAt = store->summaries().value().first().updatedAt;

        auto again = store->upsertTasks(tasks, "alice", "import again");
        VERIFY_OK(again);
        QCOMPARE(again.value(),
                 (QList<UpsertOutcome>{UpsertOutcome::Unchanged, UpsertOutcome::Unchanged, UpsertOutcome::Unchanged}));
        QCOMPARE(store->audit().value().size(), 3);
        QCOMPARE(store->summaries().value().first().updatedAt, updatedAt);

        // An edit keeps the status a review set; the incoming status is only an initial status.
        VERIFY_OK(store->review("softmax-rows", S::Accepted, "bob", "verified", ""));
        Task edited = tasks[1];
        edited.title = "Row-wise softmax";
        edited.description = "Softmax over each row, stable.";
        edited.status = S::Rejected;
        QCOMPARE(store->upsertTask(edited, "carol", "edit").value(), UpsertOutcome::Updated);
        Task expected = edited;
        expected.status = S::Accepted;
        QCOMPARE(dump(store->task("softmax-rows").value().value()), dump(expected));
        QCOMPARE(line(store->audit("task", "softmax-rows").value().last()),
                 QString("carol | task | softmax-rows | updated | edit | {\"fields\":[\"description\",\"title\"]}"));

        // A status alone is no content change.
        edited.status = S::Draft;
        QCOMPARE(store->upsertTask(edited, "carol", "status only").value(), UpsertOutcome::Unchanged);
        QCOMPARE(toString(store->task("softmax-rows").value()->status), toString(S::Accepted));
    }

    void configsKeepIntegerAndFloat()
    {
        auto store = openStore(newPath());
        QVERIFY(store);
        Task t = filterTasks().first();
        t.configs = {TaskConfig{"small",
                                {{"N", qint64(16)},
                                 {"scale", 16.0},
                                 {"fast", true},
                                 {"mode", "tile"},
                                 {"shape", QVariantList{qint64(2), 3.0}}}}};
        t.tolerance = Tolerance{1e-5, 0.25};
        t.forbiddenOps = {"torch.relu"};
        t.tags = {"a", "b"};
        t.source = TaskSource{SourceKind::File, 0, 0, {}, "/tmp/tasks.jsonl", 7};
        QCOMPARE(store->upsertTask(t, "test", "").value(), UpsertOutcome::Created);
        Task back = store->task(t.id).value().value();
        QCOMPARE(dump(back), dump(t));
        const QVariantMap values = back.configs.first().values;
        QCOMPARE(values.value("N").typeId(), int(QMetaType::LongLong));
        QCOMPARE(values.value("scale").typeId(), int(QMetaType::Double));
        QCOMPARE(values.value("shape").toList().at(1).typeId(), int(QMetaType::Double));

        // 16 -> 16.0 is a change of the task (the reference program sees a float), and the audit names it.
        t.configs.first().values.insert("N", 16.0);
        QCOMPARE(store->upsertTask(t, "test", "").value(), UpsertOutcome::Updated);
        QCOMPARE(store->task(t.id).value()->configs.first().values.value("N").typeId(), int(QMetaType::Double));
        QCOMPARE(store->audit("task", t.id).value().last().detail.value("fields").toStringList(),
                 QStringList{"configs"});
    }

    void reviewRecordsHistory()
    {
        auto store = openStore(newPath());
        QVERIFY(store);
        VERIFY_OK(store->upsertTasks(filterTasks(), "test", "seed"));
        const QDateTime start = QDateTime::currentDateTimeUtc().addSecs(-1);
        auto r1 = store->review("softmax-rows", S::InReview, "alice", "ready", "please check stability");
        VERIFY_OK(r1);
        auto r2 = store->review("softmax-rows", S::Accepted, "bob", "passes", "");
        VERIFY_OK(r2);
        QCOMPARE(line(*r1).section(" | ", 1), "softmax-rows | alice | " + r1->at.toString(Qt::ISODateWithMs) +
                                                  " | draft | in_review | ready | please check stability");
        QCOMPARE(line(*r2).section(" | ", 4, 5), QString("in_review | accepted"));
        QVERIFY(r2->id > r1->id);
        QVERIFY(r1->at >= start && r2->at >= r1->at);
        QCOMPARE(toString(store->task("softmax-rows").value()->status), toString(S::Accepted));

        const QList<ReviewRecord> history = store->reviews("softmax-rows").value();
        QCOMPARE(history.size(), 2);
        QCOMPARE(line(history[0]), line(*r1));
        QCOMPARE(line(history[1]), line(*r2));
        const QList<AuditEntry> audit = store->audit("task", "softmax-rows").value();
        QCOMPARE(audit.size(), 3);
        QCOMPARE(line(audit[1]),
                 QStringLiteral("alice | task | softmax-rows | status | ready | {\"comment\":\"please "
                                "check stability\",\"from\":\"draft\",\"review_id\":%1,\"to\":\"in_review\"}")
                     .arg(r1->id));
        QCOMPARE(line(audit[2]).section(" | ", 0, 4), QString("bob | task | softmax-rows | status | passes"));
        TaskFilter f;
        f.ids = {"softmax-rows"};
        QCOMPARE(store->summaries(f).value().first().lastReviewer, QString("bob"));
    }

    void reviewRefusesWithoutWriting_data()
    {
        QTest::addColumn<QString>("taskId");
        QTest::addColumn<QString>("reviewer");
        QTest::addColumn<ErrorCode>("code");
        QTest::newRow("unknown task") << "no-such-task"
                                      << "alice" << ErrorCode::NotFound;
        QTest::newRow("empty reviewer") << "relu"
                                        << "" << ErrorCode::InvalidInput;
        QTest::newRow("blank reviewer") << "relu"
                                        << "  \t" << ErrorCode::InvalidInput;
    }
    void reviewRefusesWithoutWriting()
    {
        QFETCH(QString, taskId);
        QFETCH(QString, reviewer);
        QFETCH(ErrorCode, code);
        store::Database& db = m_filterStore->database();
        const qint64 reviews = scalar(db, "SELECT count(*) FROM reviews");
        const qint64 audit = scalar(db, "SELECT count(*) FROM audit_log");
        auto r = m_filterStore->review(taskId, S::Rejected, reviewer, "reason", "comment");
        QVERIFY(!r);
        QCOMPARE(r.error().code, code);
        QCOMPARE(scalar(db, "SELECT count(*) FROM reviews"), reviews);
        QCOMPARE(scalar(db, "SELECT count(*) FROM audit_log"), audit);
        QCOMPARE(toString(m_filterStore->task("relu").value()->status), toString(S::Accepted));
        VERIFY_OK(m_filterStore->count());  // no transaction left open
        VERIFY_OK(db.begin());
        db.rollback();
    }

    void auditLogIsAppendOnly_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::newRow("update") << "UPDATE audit_log SET actor = 'mallory'";
        QTest::newRow("update one") << "UPDATE audit_log SET detail = '{}' WHERE id = 1";
        QTest::newRow("delete") << "DELETE FROM audit_log";
        QTest::newRow("delete one") << "DELETE FROM audit_log WHERE id = 2";
        QTest::newRow("replace") << "INSERT OR REPLACE INTO audit_log(id, at, actor, entity, entity_id, action) "
                                    "VALUES (1, 'now', 'mallory', 'task', 'relu', 'created')";
    }
    void auditLogIsAppendOnly()
    {
        QFETCH(QString, sql);
        store::Database& db = m_filterStore->database();
        const auto before = rows(db, "SELECT * FROM audit_log ORDER BY id");
        VERIFY_OK(before);
        QVERIFY(before->size() >= 8);
        QVERIFY(!db.exec(sql));
        QCOMPARE(rows(db, "SELECT * FROM audit_log ORDER BY id").value(), before.value());
    }

    void filters_data()
    {
        QTest::addColumn<TaskFilter>("filter");
        QTest::addColumn<QStringList>("expected");
        auto row = [](const char* name, const TaskFilter& f, const QStringList& expected) {
            QTest::newRow(name) << f << expected;
        };
        const QStringList all{"attention-causal", "conv2d-3x3", "gemm-bias-relu", "kb-gpt-block",
                              "layernorm",        "relu",       "softmax-rows",   "sum-reduce"};
        row("none", {}, all);
        row("status", FilterBuilder().statuses({S::Accepted}).f, {"attention-causal", "kb-gpt-block", "relu"});
        row("statuses", FilterBuilder().statuses({S::Draft, S::NeedsChanges}).f,
            {"conv2d-3x3", "softmax-rows", "sum-reduce"});
        row("level 1", FilterBuilder().levels({1}).f,
            {"conv2d-3x3", "layernorm", "relu", "softmax-rows", "sum-reduce"});
        row("levels 2,3", FilterBuilder().levels({2, 3}).f, {"attention-causal", "gemm-bias-relu"});
        row("category any of", FilterBuilder().categories({"gemm", "attention"}).f,
            {"attention-causal", "gemm-bias-relu"});
        row("category model", FilterBuilder().categories({"model"}).f, {"attention-causal", "kb-gpt-block"});
        row("unknown category", FilterBuilder().categories({"scan"}).f, {});
        row("shown reference", FilterBuilder().presentations({P::Reference}).f,
            {"attention-causal", "conv2d-3x3", "gemm-bias-relu", "kb-gpt-block", "softmax-rows"});
        row("shown all of", FilterBuilder().presentations({P::Description, P::Reference}).f,
            {"attention-causal", "gemm-bias-relu"});
        row("shown spec", FilterBuilder().presentations({P::Spec}).f, {"attention-causal", "layernorm", "sum-reduce"});
        row("ids", FilterBuilder().ids({"softmax-rows", "relu", "missing"}).f, {"relu", "softmax-rows"});
        row("limit", FilterBuilder().limit(3).f, all.mid(0, 3));
        row("status and level", FilterBuilder().statuses({S::Accepted}).levels({1}).f, {"relu"});
        row("category and shown", FilterBuilder().categories({"model"}).presentations({P::Reference}).f,
            {"attention-causal", "kb-gpt-block"});
        row("status, level, limit", FilterBuilder().statuses({S::Draft, S::Accepted}).levels({1}).limit(2).f,
            {"relu", "softmax-rows"});
        // Full text: rows ranked by relevance, compared as sets.
        row("text title", FilterBuilder().text("softmax").f, {"attention-causal", "softmax-rows"});
        row("text prefix", FilterBuilder().text("normaliz").f, {"layernorm"});
        row("text case", FilterBuilder().text("RELU").f, {"gemm-bias-relu", "relu"});
        row("text words ANDed", FilterBuilder().text("relu rectified").f, {"relu"});
        row("text description", FilterBuilder().text("decoder").f, {"attention-causal"});
        row("text spec", FilterBuilder().text("variance").f, {"layernorm"});
        row("text reference call", FilterBuilder().text("torch.nn.functional.conv2d").f, {"conv2d-3x3"});
        row("text underscore word", FilterBuilder().text("scaled_dot_product_attention").f, {"attention-causal"});
        row("text underscore prefix", FilterBuilder().text("layer_n").f, {"layernorm"});
        row("text no match", FilterBuilder().text("winograd").f, {});
        row("text and status", FilterBuilder().statuses({S::Draft}).text("torch").f, {"softmax-rows"});
        row("text and level", FilterBuilder().levels({1}).text("torch").f,
            {"conv2d-3x3", "layernorm", "relu", "softmax-rows"});
        row("text and ids", FilterBuilder().text("relu").ids({"relu"}).f, {"relu"});
        row("text and limit", FilterBuilder().text("gpt2model").limit(1).f, {"kb-gpt-block"});
    }
    void filters()
    {
        QFETCH(TaskFilter, filter);
        QFETCH(QStringList, expected);
        auto found = m_filterStore->summaries(filter);
        VERIFY_OK(found);
        QStringList got = ids(found.value());
        if (!filter.text.isEmpty()) {
            got.sort();
            expected.sort();
        }
        QCOMPARE(got, expected);
        auto full = m_filterStore->tasks(filter);
        VERIFY_OK(full);
        QCOMPARE(full->size(), expected.size());
        // The id-only query selects the same tasks, in id order (with a limit, the first ids).
        auto matching = m_filterStore->matchingIds(filter);
        VERIFY_OK(matching);
        QStringList inIdOrder = ids(found.value());
        inIdOrder.sort();
        if (filter.limit == 0 || filter.text.isEmpty())
            QCOMPARE(matching.value(), inIdOrder);
        else
            QCOMPARE(matching->size(), inIdOrder.size());
    }

    void fullTextSyntaxIsNeverAnError_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        const QStringList all = ids(m_filterStore->summaries().value());
        QTest::newRow("quote and paren") << "\"a\" OR (b" << QStringList{};
        QTest::newRow("OR is a word") << "relu OR softmax" << QStringList{};
        QTest::newRow("quoted word") << "\"relu\"" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("open paren") << "(relu" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("star suffix") << "rel*" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("NEAR") << "NEAR(relu torch, 2)" << QStringList{};
        QTest::newRow("bare NEAR") << "NEAR" << QStringList{};
        QTest::newRow("column filter") << "title:relu" << QStringList{};
        QTest::newRow("caret and minus") << "^relu -torch" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("only a star") << "*" << all;
        QTest::newRow("only punctuation") << "\"\"()*:^-+" << all;
        QTest::newRow("sql") << "'; DROP TABLE tasks; --" << QStringList{};
        QTest::newRow("unicode") << QString::fromUtf8("normalisation \xc3\xa9t\xc3\xa9 \xe2\x88\x91") << QStringList{};
    }
    void fullTextSyntaxIsNeverAnError()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        TaskFilter f;
        f.text = text;
        auto found = m_filterStore->summaries(f);
        VERIFY_OK(found);
        QStringList got = ids(found.value());
        got.sort();
        QCOMPARE(got, expected);
        QCOMPARE(m_filterStore->count().value(), 8);
    }

    void failingBatchRollsBack_data()
    {
        QTest::addColumn<QList<Task>>("batch");
        QTest::addColumn<QString>("badId");
        Task fresh = makeTask("fresh", "Fresh zebra task", 1, {"other"}, {P::Description}, S::Draft, "zebra", "");
        Task edit = filterTasks().first();
        edit.title = "Edited title that must not stay";
        Task level9 = makeTask("bad-level", "Bad", 9, {}, {P::Description}, S::Draft, "", "");
        Task level0 = level9;
        level0.level = 0;
        Task noShown = makeTask("bad-shown", "Nothing shown", 1, {}, {}, S::Draft, "", "");
        QTest::newRow("bad last") << QList<Task>{fresh, edit, level9} << "bad-level";
        QTest::newRow("bad first") << QList<Task>{level0, fresh, edit} << "bad-level";
        QTest::newRow("bad in middle") << QList<Task>{edit, noShown, fresh} << "bad-shown";
    }
    void failingBatchRollsBack()
    {
        QFETCH(QList<Task>, batch);
        QFETCH(QString, badId);
        auto store = openStore(newPath());
        QVERIFY(store);
        VERIFY_OK(store->upsertTasks(filterTasks(), "test", "seed"));
        const qint64 audit = scalar(store->database(), "SELECT count(*) FROM audit_log");
        const QByteArray relu = dump(store->task("relu").value().value());

        auto r = store->upsertTasks(batch, "test", "bad batch");
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::InvalidInput);  // refused by validation inside the transaction
        QVERIFY2(r.error().message.contains(badId), qPrintable(r.error().message));
        QCOMPARE(store->count().value(), 8);
        QVERIFY(!store->task("fresh").value().has_value());
        QCOMPARE(dump(store->task("relu").value().value()), relu);
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM audit_log"), audit);
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM task_categories WHERE task_id = 'fresh'"), qint64(0));
        TaskFilter f;
        f.text = "zebra";
        QVERIFY(store->summaries(f)->isEmpty());
        // The transaction is closed: the next batch goes through.
        for (const Task& t : batch)
            if (t.id == "fresh")
                QCOMPARE(store->upsertTask(t, "test", "after").value(), UpsertOutcome::Created);
        QCOMPARE(store->count().value(), 9);
    }
};

QTEST_GUILESS_MAIN(TestStoreQueries)
#include "test_store_queries.moc"
