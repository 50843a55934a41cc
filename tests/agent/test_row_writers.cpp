// One writer per row type: a verdict is refused for the same reasons whichever path records it (kmosaic verify's
// VerdictStore, the agent's TrajectoryStore::recordStep, a bundle's importRun), with nothing written, and the same
// code stored twice is one solution row on every path and across them. Real store files.
#include "../core/StoreTestSupport.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"

using namespace km::storetest;

namespace {
const QString kCode = QStringLiteral("class ModelNew: pass\n");

Verdict verdict(VerdictStatus status)
{
    Verdict v;
    v.status = status;
    v.summary = QStringLiteral("summary");
    v.evidence = {{QStringLiteral("failure"), QVariantMap{{QStringLiteral("config"), QStringLiteral("small")}}}};
    return v;
}

TrajectoryStep step(int idx, const QString& code)
{
    TrajectoryStep s;
    s.idx = idx;
    s.stage = Stage::Implement;
    s.templateName = toString(Stage::Implement);
    s.prompt = QStringLiteral("prompt %1").arg(idx);
    s.reply = QStringLiteral("reply %1").arg(idx);
    s.code = code;
    return s;
}

enum class Path { Verify, Agent, Import };

// Records `verdicts` (one step each, all with `code`) through one path, as that path's caller does; the agent path
// into `run`, or a run it creates.
Status record(TaskStore& s, Path path, const QList<Verdict>& verdicts, const QString& code = kCode,
              std::optional<AgentRun> run = std::nullopt)
{
    if (path == Path::Verify) {
        VerdictStore vs(s.database());
        for (const Verdict& v : verdicts)
            if (auto r = vs.recordVerified(QStringLiteral("relu"), code, QStringLiteral("manual"), v, "test"); !r)
                return r.error();
        return {};
    }
    TrajectoryStore ts(s.database());
    if (path == Path::Agent) {
        if (!run) {
            AgentRun r;
            r.taskId = QStringLiteral("relu");
            auto created = ts.createRun(r, "test");
            if (!created)
                return created.error();
            run = created.value();
        }
        for (int i = 0; i < verdicts.size(); ++i)
            if (auto st = ts.recordStep(*run, step(i, code), verdicts[i], false, "test"); !st)
                return st.error();
        return {};
    }
    BundledRun b;
    b.run.taskId = QStringLiteral("relu");
    b.run.state = RunState::Completed;
    // A start time of its own: a bundled run with the task, start time and steps of a stored run is that run
    // exported and brought back, and import skips it; an agent run recorded in the same millisecond would be one.
    b.run.startedAt = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(count(s, "runs"));
    b.origin = QStringLiteral("origin-%1").arg(count(s, "runs"));
    for (int i = 0; i < verdicts.size(); ++i)
        b.steps.append(BundledStep{step(i, code), verdicts[i]});
    auto imported = ts.importRun(b, {}, "test");
    if (!imported)
        return imported.error();
    return {};
}
}  // namespace

Q_DECLARE_METATYPE(Path)
Q_DECLARE_METATYPE(km::Verdict)

class TestRowWriters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto s = TaskStore::open(m_dir.filePath(QStringLiteral("t%1.sqlite").arg(++m_n)));
        QVERIFY2(s.ok(), s.ok() ? "" : qPrintable(s.error().message));
        m_store = std::move(s).value();
        VERIFY_OK(m_store->upsertTasks(filterTasks(), "test", "seed"));
    }

    void refusedVerdictWritesNothing_data()
    {
        QTest::addColumn<Path>("path");
        QTest::addColumn<Verdict>("bad");
        QTest::addColumn<QString>("reason");
        Verdict outside = verdict(VerdictStatus::Passed);
        outside.status = static_cast<VerdictStatus>(999);
        Verdict findings = verdict(VerdictStatus::Passed);
        findings.evidence.insert(QStringLiteral("findings"), QVariantList{});
        Verdict diagnostics = verdict(VerdictStatus::CompileError);
        diagnostics.evidence.insert(QStringLiteral("diagnostics"), QVariantList{});
        const QList<std::pair<const char*, Path>> paths{
            {"verify", Path::Verify}, {"agent", Path::Agent}, {"import", Path::Import}};
        for (const auto& [name, path] : paths) {
            QTest::addRow("%s: status outside the taxonomy", name) << path << outside << "outside the taxonomy";
            QTest::addRow("%s: evidence carries findings", name) << path << findings << "must not carry 'findings'";
            QTest::addRow("%s: evidence carries diagnostics", name)
                << path << diagnostics << "must not carry 'diagnostics'";
        }
    }

    void refusedVerdictWritesNothing()
    {
        QFETCH(Path, path);
        QFETCH(Verdict, bad);
        QFETCH(QString, reason);
        // The agent's run exists before its refused step, as it does in a real run.
        std::optional<AgentRun> run;
        if (path == Path::Agent) {
            AgentRun r;
            r.taskId = QStringLiteral("relu");
            auto created = TrajectoryStore(m_store->database()).createRun(r, "test");
            VERIFY_OK(created);
            run = created.value();
        }
        const QString before = counts(*m_store);
        const Status st = record(*m_store, path, {bad}, kCode, run);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().code, ErrorCode::InvalidInput);
        QVERIFY2(st.error().message.contains(reason), qPrintable(st.error().message));
        QCOMPARE(counts(*m_store), before);
    }

    void refusedStepAfterGoodOnes()
    {
        // The agent: steps recorded before the refused one stay (each step is its own transaction).
        VERIFY_OK(record(*m_store, Path::Agent, {verdict(VerdictStatus::Passed)}));
        Verdict bad = verdict(VerdictStatus::Passed);
        bad.status = static_cast<VerdictStatus>(-1);
        QVERIFY(!record(*m_store, Path::Agent, {verdict(VerdictStatus::CompileError), bad}, "other\n").ok());
        QCOMPARE(count(*m_store, "trajectory_steps"), 2);  // the first run's step, the second run's first step
        QCOMPARE(count(*m_store, "verdicts"), 2);
        // An import: one transaction per run, so its good first step goes with the refused second one.
        const QString before = counts(*m_store);
        QVERIFY(!record(*m_store, Path::Import, {verdict(VerdictStatus::Passed), bad}, "third\n").ok());
        QCOMPARE(counts(*m_store), before);
    }

    void sameCodeTwiceIsOneSolution_data()
    {
        QTest::addColumn<Path>("path");
        QTest::newRow("verify") << Path::Verify;
        QTest::newRow("agent") << Path::Agent;
        QTest::newRow("import") << Path::Import;
    }

    void sameCodeTwiceIsOneSolution()
    {
        QFETCH(Path, path);
        VERIFY_OK(record(*m_store, path, {verdict(VerdictStatus::CompileError), verdict(VerdictStatus::Passed)}));
        QCOMPARE(count(*m_store, "solutions"), 1);
        QCOMPARE(count(*m_store, "verdicts"), 2);
        QCOMPARE(scalar(m_store->database(),
                        "SELECT COUNT(*) FROM audit_log WHERE entity = 'solution' AND action = 'created'"),
                 1);
        QCOMPARE(scalar(m_store->database(),
                        "SELECT COUNT(*) FROM audit_log WHERE entity = 'solution' AND action = 'verified'"),
                 2);
    }

    void sameCodeAcrossPathsIsOneSolution()
    {
        for (Path p : {Path::Verify, Path::Agent, Path::Import})
            VERIFY_OK(record(*m_store, p, {verdict(VerdictStatus::Passed)}));
        QCOMPARE(count(*m_store, "solutions"), 1);
        QCOMPARE(count(*m_store, "verdicts"), 3);
        // The verify path stored it first, so it keeps that origin; the agent's step links it.
        QCOMPARE(scalar(m_store->database(), "SELECT COUNT(*) FROM solutions WHERE origin = 'manual'"), 1);
        QCOMPARE(scalar(m_store->database(), "SELECT COUNT(*) FROM solutions WHERE step_id IS NOT NULL"), 1);
    }

private:
    QTemporaryDir m_dir;
    int m_n = 0;
    std::unique_ptr<TaskStore> m_store;
};

QTEST_GUILESS_MAIN(TestRowWriters)
#include "test_row_writers.moc"
