// Solutions and verdicts in the store: lossless round trips (JSON and SQLite), idempotent solutions, refusals that
// write nothing, list filters and the audit entries.
#include "StoreTestSupport.h"
#include "model/VerdictCodec.h"
#include "store/VerdictStore.h"

Q_DECLARE_METATYPE(km::VerdictFilter)

namespace {
QDateTime at(const char* iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
}

// Every field the harness and the verifier fill, with values whose JSON types matter (16 vs 16.0).
Verdict fullVerdict()
{
    Verdict v;
    v.status = VerdictStatus::RewardHack;
    v.createdAt = at("2025-03-01T13:30:15.250+01:00");  // stored and read back in UTC, the same instant
    v.harnessVersion = "0.4.2";
    v.executor = "local";
    v.isolation = "netns, read-only root, scratch writable, 16384 MB";
    v.summary = "static.threads fired; small: max abs 1e-07";
    v.findings = {{"static.threads", Finding::Severity::Error, 12, "imports threading"},
                  {"static.reference_op", Finding::Severity::Warning, 0, "calls torch.relu like the reference"}};
    v.diagnostics = {{"error", 14, "cuda.cu", 3, "identifier \"blockDim\" is undefined"},
                     {"note", 0, "main.cpp", 7, "declared here"}};
    v.environment = {{"gpu", "NVIDIA H200"}, {"torch", "2.11.0"}, {"clocks", QVariantMap{{"sm", qint64(1980)}}}};
    // Parsed, so the types are what a harness reply gives: 17 an integer, 16.0 a double, null an invalid QVariant.
    v.evidence = json::parse(R"({"trials":[{"config":"small","seed":17,"output":0,"max_abs":1e-07,"max_rel":2e-06,)"
                             R"("ok":true}],"timing":{"runs":100,"solution_ms":{"median":0.14,"q1":0.139,"q3":0.141},)"
                             R"("speedup":16.0,"speedup_ci95":[1.01,1.05]},"error":null})",
                             nullptr)
                     .value_or(QVariant())
                     .toMap();
    v.runtimeMs = 0.14;
    v.refRuntimeMs = 0.1442;
    v.speedup = 1.03;
    return v;
}

// Field by field, so a field that both sides of a round trip drop still fails here.
void compareVerdicts(const Verdict& got, const Verdict& want)
{
    QCOMPARE(got.id, want.id);
    QCOMPARE(got.solutionId, want.solutionId);
    QCOMPARE(toString(got.status), toString(want.status));
    QCOMPARE(got.createdAt, want.createdAt);
    QCOMPARE(got.createdAt.isValid(), want.createdAt.isValid());
    if (want.createdAt.isValid())
        QCOMPARE(got.createdAt.timeSpec(), Qt::UTC);
    QCOMPARE(got.harnessVersion, want.harnessVersion);
    QCOMPARE(got.executor, want.executor);
    QCOMPARE(got.isolation, want.isolation);
    QCOMPARE(got.summary, want.summary);
    QCOMPARE(got.findings, want.findings);
    QCOMPARE(got.diagnostics, want.diagnostics);
    QCOMPARE(json::write(got.environment), json::write(want.environment));
    QCOMPARE(json::write(got.evidence), json::write(want.evidence));
    QVERIFY(got.runtimeMs == want.runtimeMs);
    QVERIFY(got.refRuntimeMs == want.refRuntimeMs);
    QVERIFY(got.speedup == want.speedup);
}
}  // namespace

class TestVerdictStore : public QObject, public StoreFiles {
    Q_OBJECT

    std::unique_ptr<TaskStore> seededStore()
    {
        auto store = openStore(newPath());
        if (store && !store->upsertTasks(filterTasks(), "test", "seed"))
            return nullptr;
        return store;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void statusNames()
    {
        const QStringList names{
            "INVALID_REFERENCE", "SYSTEM_ERROR",    "REWARD_HACK",     "COMPILE_ERROR",       "TIMEOUT",
            "RUNTIME_ERROR",     "INCORRECT_SHAPE", "INCORRECT_DTYPE", "INCORRECT_NUMERICAL", "PASSED"};
        QCOMPARE(allVerdictStatuses().size(), names.size());
        for (int i = 0; i < names.size(); ++i) {
            QCOMPARE(toString(allVerdictStatuses()[i]), names[i]);
            QVERIFY(verdictStatusFromString(names[i]) == allVerdictStatuses()[i]);
        }
        for (const char* bad : {"passed", "GREAT", "", "PASSED "})
            QVERIFY2(!verdictStatusFromString(bad), bad);
        QCOMPARE(toString(static_cast<VerdictStatus>(42)), QString());
        QCOMPARE(toString(Finding::Severity::Error), QString("error"));
        QCOMPARE(toString(Finding::Severity::Warning), QString("warning"));
    }

    void jsonRoundTrip()
    {
        Verdict v = fullVerdict();
        v.id = 7;
        v.solutionId = 3;
        const QVariantMap m = verdictToVariant(v);
        QCOMPARE(m.value("status").toString(), QString("REWARD_HACK"));
        QCOMPARE(m.value("created_at").toString(), QString("2025-03-01T12:30:15.250Z"));
        QCOMPARE(
            json::write(m.value("findings").toList().first()),
            QByteArray(R"({"check":"static.threads","line":12,"message":"imports threading","severity":"error"})"));
        QCOMPARE(json::write(m.value("diagnostics").toList().first()),
                 QByteArray(R"({"generated_file":"cuda.cu","generated_line":3,"line":14,)"
                            "\"message\":\"identifier \\\"blockDim\\\" is undefined\",\"severity\":\"error\"}"));
        const auto parsed = json::parse(json::write(m), nullptr);
        QVERIFY(parsed);
        auto back = verdictFromVariant(parsed->toMap());
        VERIFY_OK(back);
        compareVerdicts(back.value(), v);

        Verdict bare;  // no time, no timings: they stay absent
        auto bareBack = verdictFromVariant(json::parse(json::write(verdictToVariant(bare)), nullptr)->toMap());
        VERIFY_OK(bareBack);
        compareVerdicts(bareBack.value(), bare);
        QVERIFY(!bareBack->speedup);
    }

    void jsonRefusesMalformed_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QVariant>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("status outside taxonomy") << "status" << QVariant("GREAT") << "status 'GREAT' is not";
        QTest::newRow("bad time") << "created_at" << QVariant("yesterday") << "created_at 'yesterday'";
        QTest::newRow("speedup as text") << "speedup" << QVariant("fast") << "speedup is not a number";
        QTest::newRow("findings not a list") << "findings" << QVariant("none") << "findings is not a list";
        QTest::newRow("finding severity")
            << "findings" << QVariant(QVariantList{QVariantMap{{"check", "x"}, {"severity", "fatal"}}})
            << "findings[0].severity 'fatal'";
        QTest::newRow("diagnostic line") << "diagnostics" << QVariant(QVariantList{QVariantMap{{"line", "14"}}})
                                         << "diagnostics[0].line";
        QTest::newRow("evidence not an object")
            << "evidence" << QVariant(QVariantList{}) << "evidence is not an object";
    }
    void jsonRefusesMalformed()
    {
        QFETCH(QString, key);
        QFETCH(QVariant, value);
        QFETCH(QString, message);
        QVariantMap m = verdictToVariant(fullVerdict());
        m.insert(key, value);
        auto v = verdictFromVariant(m);
        QVERIFY(!v);
        QCOMPARE(v.error().code, ErrorCode::InvalidInput);
        QVERIFY2(v.error().message.contains(message), qPrintable(v.error().message));
    }

    void roundTripThroughFile()
    {
        const QString path = newPath();
        Verdict stored;
        {
            auto store = openStore(path);
            QVERIFY(store);
            VERIFY_OK(store->upsertTasks(filterTasks(), "test", "seed"));
            VerdictStore verdicts(store->database());
            auto s = verdicts.addSolution("relu", "class ModelNew: ...\n", "agent", "ann");
            VERIFY_OK(s);
            auto v = verdicts.addVerdict(s->id, fullVerdict(), "ann");
            VERIFY_OK(v);
            stored = v.value();
            QVERIFY(stored.id > 0 && stored.solutionId == s->id);
        }
        auto store = openStore(path);  // a fresh connection reads what the file holds
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        auto back = verdicts.verdict(stored.id);
        QVERIFY(back && back->has_value());
        Verdict want = fullVerdict();
        want.id = stored.id;
        want.solutionId = stored.solutionId;
        compareVerdicts(**back, want);
        compareVerdicts(stored, want);

        // Findings and diagnostics live in the evidence column beside the harness's keys; the summary in its column.
        const auto row = rows(store->database(), "SELECT evidence, summary, created_at, speedup FROM verdicts");
        VERIFY_OK(row);
        const QVariantMap evidence = json::parse(row->first().value(0).toByteArray(), nullptr)->toMap();
        QCOMPARE(evidence.keys(), QStringList({"diagnostics", "error", "findings", "timing", "trials"}));
        QCOMPARE(row->first().value(1).toString(), want.summary);
        QCOMPARE(row->first().value(2).toString(), QString("2025-03-01T12:30:15.250Z"));
        QCOMPARE(row->first().value(3).toDouble(), 1.03);

        // A verdict without timings stores NULLs, not zeros, and a verdict without a time gets the current one.
        Verdict bare;
        bare.status = VerdictStatus::CompileError;
        const QDateTime before = QDateTime::currentDateTimeUtc().addMSecs(-1);
        auto b = verdicts.addVerdict(stored.solutionId, bare, "ann");
        VERIFY_OK(b);
        QVERIFY(b->createdAt >= before && b->createdAt <= QDateTime::currentDateTimeUtc());
        QCOMPARE(scalar(store->database(), QString("SELECT count(*) FROM verdicts WHERE id = %1 AND speedup IS NULL "
                                                   "AND runtime_ms IS NULL AND ref_runtime_ms IS NULL")
                                               .arg(b->id)),
                 qint64(1));
        auto bareBack = verdicts.verdict(b->id);
        QVERIFY(bareBack && bareBack->has_value());
        QVERIFY(!(*bareBack)->speedup && !(*bareBack)->runtimeMs && !(*bareBack)->refRuntimeMs);
        QCOMPARE((*bareBack)->createdAt, b->createdAt);
        QVERIFY(!verdicts.verdict(9999).value().has_value());
    }

    void addSolutionIsIdempotent()
    {
        auto store = seededStore();
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        auto first = verdicts.addSolution("relu", "abc", "manual", "ann");
        VERIFY_OK(first);
        QCOMPARE(first->codeHash, QString("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(first->taskId, QString("relu"));
        QCOMPARE(first->origin, QString("manual"));
        auto again = verdicts.addSolution("relu", "abc", "agent", "bob");
        VERIFY_OK(again);
        QCOMPARE(again->id, first->id);
        QCOMPARE(again->origin, QString("manual"));  // the row stored first, unchanged
        QCOMPARE(again->createdAt, first->createdAt);
        auto other = verdicts.addSolution("relu", "abd", "manual", "ann");
        auto otherTask = verdicts.addSolution("softmax-rows", "abc", "manual", "ann");
        QVERIFY(other && otherTask);
        QCOMPARE(QSet<qint64>({first->id, other->id, otherTask->id}).size(), 3);
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM solutions"), qint64(3));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM audit_log WHERE entity = 'solution'"), qint64(3));
        auto read = verdicts.solution(first->id);
        QVERIFY(read && read->has_value());
        QCOMPARE(read.value()->code, QString("abc"));
        QCOMPARE(read.value()->createdAt, first->createdAt);
        QVERIFY(!verdicts.solution(9999).value().has_value());
    }

    void refusalsWriteNothing()
    {
        auto store = seededStore();
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        const qint64 audit = scalar(store->database(), "SELECT count(*) FROM audit_log");
        auto unknownTask = verdicts.addSolution("no-such-task", "abc", "manual", "ann");
        QVERIFY(!unknownTask);
        QCOMPARE(unknownTask.error().code, ErrorCode::NotFound);
        QVERIFY2(unknownTask.error().message.contains("no task with id 'no-such-task'"),
                 qPrintable(unknownTask.error().message));
        auto badOrigin = verdicts.addSolution("relu", "abc", "llm", "ann");
        QVERIFY(!badOrigin);
        QVERIFY(badOrigin.error().message.contains("origin 'llm'"));
        auto unknownSolution = verdicts.addVerdict(4242, fullVerdict(), "ann");
        QVERIFY(!unknownSolution);
        QCOMPARE(unknownSolution.error().code, ErrorCode::NotFound);
        QVERIFY(unknownSolution.error().message.contains("no solution with id 4242"));

        auto s = verdicts.addSolution("relu", "abc", "manual", "ann");
        VERIFY_OK(s);
        Verdict reserved = fullVerdict();
        reserved.evidence.insert("findings", QVariantList{});
        auto r = verdicts.addVerdict(s->id, reserved, "ann");
        QVERIFY(!r);
        QVERIFY2(r.error().message.contains("must not carry 'findings'"), qPrintable(r.error().message));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM solutions"), qint64(1));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM verdicts"), qint64(0));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM audit_log"), audit + 1);  // the one solution
    }

    void recordVerifiedIsOneTransaction()
    {
        auto store = seededStore();
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        auto stored = verdicts.recordVerified("relu", "abc", "agent", fullVerdict(), "ann");
        VERIFY_OK(stored);
        QVERIFY(stored->solutionId > 0);
        QCOMPARE(verdicts.solution(stored->solutionId).value().value().code, QString("abc"));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM verdicts"), qint64(1));
        QCOMPARE(store->database().transactionDepth(), 0);

        // A verdict refused after its solution was written leaves neither row (nor audit entry) behind.
        const qint64 audit = scalar(store->database(), "SELECT count(*) FROM audit_log");
        Verdict reserved = fullVerdict();
        reserved.evidence.insert("findings", QVariantList{});
        auto refused = verdicts.recordVerified("relu", "other code", "agent", reserved, "ann");
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains("must not carry 'findings'"), qPrintable(refused.error().message));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM solutions"), qint64(1));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM verdicts"), qint64(1));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM audit_log"), audit);
        QCOMPARE(store->database().transactionDepth(), 0);
    }

    void nestedTransactionRollsBackOnlyItsPart()
    {
        auto store = seededStore();
        QVERIFY(store);
        store::Database& db = store->database();
        VerdictStore verdicts(db);
        {
            store::Transaction outer(db);
            VERIFY_OK(outer.started());
            VERIFY_OK(verdicts.addSolution("relu", "kept", "manual", "ann"));
            {
                store::Transaction inner(db);
                VERIFY_OK(inner.started());
                QCOMPARE(db.transactionDepth(), 2);
                VERIFY_OK(db.exec("DELETE FROM solutions"));
            }  // rolled back: the delete is undone, the outer insert stays
            QCOMPARE(scalar(db, "SELECT count(*) FROM solutions"), qint64(1));
            VERIFY_OK(outer.commit());
        }
        QCOMPARE(db.transactionDepth(), 0);
        QCOMPARE(scalar(db, "SELECT count(*) FROM solutions"), qint64(1));
        {
            store::Transaction outer(db);
            VERIFY_OK(verdicts.addSolution("relu", "dropped", "manual", "ann"));
        }  // the outer rollback undoes the inner store call's own (committed) savepoint too
        QCOMPARE(scalar(db, "SELECT count(*) FROM solutions"), qint64(1));
    }

    void statusOutsideTaxonomyIsImpossible()
    {
        auto store = seededStore();
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        auto s = verdicts.addSolution("relu", "abc", "manual", "ann");
        VERIFY_OK(s);
        Verdict v = fullVerdict();
        v.status = static_cast<VerdictStatus>(42);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("refused a verdict with status 42"));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("CHECK constraint failed"));
        auto r = verdicts.addVerdict(s->id, v, "ann");
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::InvalidInput);
        QVERIFY(r.error().message.contains("outside the taxonomy"));
        // Nor past the API: the schema refuses the text.
        QVERIFY(!store->database().exec("INSERT INTO verdicts(solution_id, status, created_at) VALUES (?, 'GREAT', "
                                        "'2025-01-01T00:00:00.000Z')",
                                        {s->id}));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM verdicts"), qint64(0));
        VerdictFilter f;
        f.statuses = {static_cast<VerdictStatus>(42)};
        QVERIFY(!verdicts.verdicts(f));
    }

    void filters_data()
    {
        QTest::addColumn<VerdictFilter>("filter");
        QTest::addColumn<QList<qint64>>("ids");
        const auto filter = [](QString task, QList<VerdictStatus> statuses, qint64 solution, int limit) {
            return VerdictFilter{std::move(task), std::move(statuses), solution, limit};
        };
        using V = VerdictStatus;
        // Seeded below: 1 relu/s1 PASSED 10:00, 2 relu/s1 REWARD_HACK 11:00, 3 relu/s2 COMPILE_ERROR 09:00,
        // 4 softmax/s3 PASSED 12:00, 5 softmax/s3 INCORRECT_NUMERICAL 12:00 (same time, later id).
        QTest::newRow("all, newest first") << VerdictFilter{} << QList<qint64>{5, 4, 2, 1, 3};
        QTest::newRow("task") << filter("relu", {}, 0, 0) << QList<qint64>{2, 1, 3};
        QTest::newRow("status") << filter({}, {V::Passed}, 0, 0) << QList<qint64>{4, 1};
        QTest::newRow("statuses") << filter({}, {V::Passed, V::RewardHack}, 0, 0) << QList<qint64>{4, 2, 1};
        QTest::newRow("solution") << filter({}, {}, 3, 0) << QList<qint64>{5, 4};
        QTest::newRow("task and status") << filter("relu", {V::Passed}, 0, 0) << QList<qint64>{1};
        QTest::newRow("limit") << filter({}, {}, 0, 2) << QList<qint64>{5, 4};
        QTest::newRow("unknown task") << filter("nope", {}, 0, 0) << QList<qint64>{};
    }
    void filters()
    {
        QFETCH(VerdictFilter, filter);
        QFETCH(QList<qint64>, ids);
        auto store = seededStore();
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        const qint64 s1 = verdicts.addSolution("relu", "a", "manual", "t").value().id;
        const qint64 s2 = verdicts.addSolution("relu", "b", "manual", "t").value().id;
        const qint64 s3 = verdicts.addSolution("softmax-rows", "c", "manual", "t").value().id;
        QCOMPARE(s3, 3);
        const std::tuple<qint64, VerdictStatus, const char*> seed[] = {
            {s1, VerdictStatus::Passed, "2025-01-01T10:00:00.000Z"},
            {s1, VerdictStatus::RewardHack, "2025-01-01T11:00:00.000Z"},
            {s2, VerdictStatus::CompileError, "2025-01-01T09:00:00.000Z"},
            {s3, VerdictStatus::Passed, "2025-01-01T12:00:00.000Z"},
            {s3, VerdictStatus::IncorrectNumerical, "2025-01-01T12:00:00.000Z"}};
        for (const auto& [solution, status, time] : seed) {
            Verdict v;
            v.status = status;
            v.createdAt = at(time);
            v.summary = QString("verdict of solution %1").arg(solution);
            v.speedup = status == VerdictStatus::Passed ? std::optional<double>(1.5) : std::nullopt;
            VERIFY_OK(verdicts.addVerdict(solution, v, "t"));
        }
        auto list = verdicts.verdicts(filter);
        VERIFY_OK(list);
        QList<qint64> got;
        for (const VerdictSummary& s : list.value()) {
            got.append(s.id);
            QCOMPARE(s.taskId, QString(s.solutionId == s3 ? "softmax-rows" : "relu"));
            QCOMPARE(s.summary, QString("verdict of solution %1").arg(s.solutionId));
            QCOMPARE(s.speedup.has_value(), s.status == VerdictStatus::Passed);
        }
        QCOMPARE(got, ids);
        auto latest = verdicts.latestVerdict(s1);
        VERIFY_OK(latest);
        QCOMPARE(latest.value()->id, 2);
        QCOMPARE(verdicts.latestVerdict(s3).value()->id, 5);
        const qint64 fresh = verdicts.addSolution("relu", "never verified", "manual", "t").value().id;
        QVERIFY(!verdicts.latestVerdict(fresh).value().has_value());
    }

    void auditEntryPerVerdict()
    {
        auto store = seededStore();
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        auto s = verdicts.addSolution("relu", "abc", "agent", "ann");
        VERIFY_OK(s);
        auto v = verdicts.addVerdict(s->id, fullVerdict(), "verifier@node1");
        VERIFY_OK(v);
        auto audit = store->audit("solution", QString::number(s->id));
        VERIFY_OK(audit);
        QCOMPARE(audit->size(), 2);
        QCOMPARE(line(audit->at(0)), QString("ann | solution | %1 | created |  | {\"code_hash\":\"%2\",\"origin\":"
                                             "\"agent\",\"task_id\":\"relu\"}")
                                         .arg(s->id)
                                         .arg(s->codeHash));
        QCOMPARE(
            line(audit->at(1)),
            QString("verifier@node1 | solution | %1 | verified |  | {\"status\":\"REWARD_HACK\",\"verdict_id\":%2}")
                .arg(s->id)
                .arg(v->id));
    }

    void verdictWrittenBeforeV5IsRead()
    {
        const QString path = newPath();
        {
            auto db = store::Database::open(path, 4);
            VERIFY_OK(db);
            TaskStore old(std::move(db).value());
            VERIFY_OK(old.upsertTasks(filterTasks(), "old", "seed"));
            VERIFY_OK(old.database().exec("INSERT INTO solutions(task_id, code, code_hash, origin, created_at) "
                                          "VALUES ('relu', 'x', 'h', 'manual', '2024-01-01T00:00:00.000Z')"));
            VERIFY_OK(old.database().exec("INSERT INTO verdicts(solution_id, status, created_at, evidence, speedup) "
                                          "VALUES (1, 'PASSED', '2024-01-01T00:00:01.000Z', '{\"trials\":[]}', 2.0)"));
        }
        auto store = openStore(path);
        QVERIFY(store);
        VerdictStore verdicts(store->database());
        auto v = verdicts.verdict(1);
        VERIFY_OK(v);
        QVERIFY(v->has_value());
        QCOMPARE(toString((*v)->status), QString("PASSED"));
        QCOMPARE((*v)->summary, QString());
        QVERIFY((*v)->findings.isEmpty());
        QCOMPARE(json::write((*v)->evidence), QByteArray(R"({"trials":[]})"));
        QVERIFY(verdicts.verdicts().value().first().speedup == std::optional<double>(2.0));
    }
};

QTEST_GUILESS_MAIN(TestVerdictStore)
#include "test_verdict_store.moc"
