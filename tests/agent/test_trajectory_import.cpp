// Trajectory bundles between real store files: runs recorded through TrajectoryStore, exported, imported into a
// fresh store and compared field by field; a second import skips; a missing task fails that run only and writes
// nothing; a run failing midway leaves nothing; and the same through the kmosaic binary (export, import, show).
#include "../common/CliRun.h"
#include "../common/StepCompare.h"
#include "../core/StoreTestSupport.h"
#include "agent/TrajectoryBundle.h"
#include "model/VerdictCodec.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"

namespace {
const QString kLabel = QStringLiteral("team-authored demonstration");

TrajectoryStep step(int idx, Stage stage, const QString& code, const QString& error = {})
{
    TrajectoryStep s;
    s.idx = idx;
    s.stage = stage;
    s.templateName = code.isEmpty() ? QStringLiteral("no_code") : toString(stage);
    s.prompt = QStringLiteral("prompt %1").arg(idx);
    s.reply = QStringLiteral("reply %1 ✓").arg(idx);
    s.code = code;
    s.error = error;
    s.diff = code.isEmpty() ? QString() : QStringLiteral("+") + code;
    s.tokensIn = 100 + idx;
    s.tokensOut = 10 * (idx + 1);
    s.latencyMs = 1000 + idx;
    s.verifyMs = 2000 + idx;
    s.guidance = {QStringLiteral("memory-coalescing")};
    s.usage = {{QStringLiteral("attempts"), 2}};
    s.messages = {QVariantMap{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), s.prompt}}};
    return s;
}

Verdict verdict(VerdictStatus status, std::optional<double> speedup)
{
    Verdict v;
    v.status = status;
    v.summary = QStringLiteral("summary of %1").arg(toString(status));
    v.harnessVersion = QStringLiteral("h7");
    v.executor = QStringLiteral("local");
    v.environment = {{QStringLiteral("gpu"), QStringLiteral("none")}};
    v.evidence = {{QStringLiteral("failure"), QVariantMap{{QStringLiteral("config"), QStringLiteral("small")}}}};
    v.findings = {Finding{QStringLiteral("static.threads"), Finding::Severity::Warning, 4, QStringLiteral("note")}};
    v.diagnostics = {
        SolutionDiagnostic{QStringLiteral("error"), 6, QStringLiteral("main.cpp"), 9, QStringLiteral("x")}};
    v.speedup = speedup;
    v.runtimeMs = speedup ? std::optional<double>(1.0) : std::nullopt;
    v.refRuntimeMs = speedup ? std::optional<double>(*speedup) : std::nullopt;
    return v;
}

QVariantMap verdictFields(const Verdict& v)
{
    QVariantMap m = verdictToVariant(v);
    m.remove(QStringLiteral("id"));
    m.remove(QStringLiteral("solution_id"));
    return m;
}

Result<RunImport> importInto(TaskStore& s, const BundledRun& r)
{
    TrajectoryStore ts(s.database());
    return ts.importRun(r, bundleProvenance(kLabel, r.origin, QDateTime::currentDateTimeUtc(), {}), "test");
}
}  // namespace

class TestTrajectoryImport : public QObject, StoreFiles {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_source = openStore(newPath());
        QVERIFY(m_source);
        VERIFY_OK(m_source->upsertTasks(filterTasks(), "test", "seed"));
        TrajectoryStore ts(m_source->database());
        AgentRun r;
        r.taskId = "relu";
        r.kind = "llm";
        r.model = "m1";
        r.promptVersion = "implement@1";
        r.settings = {{"provider", QVariantMap{{"api_key_env", "KEY"}, {"api_key", "sk-LEAK"}}}, {"seed", 7}};
        r.budgets = {{"run", QVariantMap{{"turns", 8}}}};
        auto run = ts.createRun(r, "test");
        VERIFY_OK(run);
        AgentRun cur = run.value();
        VERIFY_OK(ts.recordStep(cur, step(0, Stage::Implement, {}, "no code block"), std::nullopt, false, "test"));
        VERIFY_OK(ts.recordStep(cur, step(1, Stage::Implement, "bad\n"), verdict(VerdictStatus::CompileError, {}),
                                false, "test"));
        cur.stage = Stage::Optimise;
        VERIFY_OK(
            ts.recordStep(cur, step(2, Stage::Repair, "good\n"), verdict(VerdictStatus::Passed, 2.5), true, "test"));
        VERIFY_OK(
            ts.finishRun(cur.id, RunState::Completed, {}, {{"turns", 3}, {"best_speedup", 2.5}, {"passed", true}}));
        AgentRun other;
        other.taskId = "softmax-rows";
        auto running = ts.createRun(other, "test");  // stays running: this process owns it
        VERIFY_OK(running);
        VERIFY_OK(ts.recordStep(running.value(), step(0, Stage::Implement, "x\n"),
                                verdict(VerdictStatus::IncorrectNumerical, {}), false, "test"));
        m_runIds = {run->id, running->id};
    }

    void runsArriveFieldByFieldAndOnlyOnce()
    {
        TrajectoryStore source(m_source->database());
        auto bundled = source.bundledRuns({});
        VERIFY_OK(bundled);
        QCOMPARE(bundled->size(), 2);
        QCOMPARE(bundled->at(0).run.id, m_runIds[0]);  // oldest first
        TrajectoryBundle b{kLabel, QDateTime::currentDateTimeUtc(), "kmosaic test", bundled.value()};
        const QByteArray bytes = writeTrajectoryBundle(b);
        QVERIFY(!bytes.contains("sk-LEAK"));
        auto read = readTrajectoryBundle(bytes);
        VERIFY_OK(read);

        auto target = openStore(newPath());
        VERIFY_OK(target->upsertTasks(filterTasks(), "test", "seed"));
        QList<qint64> ids;
        for (const BundledRun& r : read->runs) {
            auto imported = importInto(*target, r);
            VERIFY_OK(imported);
            QVERIFY(!imported->skipped);
            ids.append(imported->runId);
        }
        TrajectoryStore ts(target->database());
        VerdictStore sourceVerdicts(m_source->database()), targetVerdicts(target->database());
        for (int i = 0; i < 2; ++i) {
            const AgentRun a = source.run(m_runIds[i]).value().value();
            const AgentRun c = ts.run(ids[i]).value().value();
            QCOMPARE(c.taskId, a.taskId);
            QCOMPARE(c.kind, a.kind);
            QCOMPARE(c.model, a.model);
            QCOMPARE(c.promptVersion, a.promptVersion);
            QVariantMap settings = c.settings;
            const QVariantMap provenance = settings.take("provenance").toMap();
            QCOMPARE(json::write(settings), json::write(withoutSecrets(a.settings)));
            QCOMPARE(provenance.value("label").toString(), kLabel);
            QCOMPARE(provenance.value("origin").toString(), trajectoryOrigin(read->runs[i]));
            QVERIFY(parseIsoUtc(provenance.value("imported_at").toString()).has_value());
            QCOMPARE(json::write(c.budgets), json::write(a.budgets));
            QCOMPARE(json::write(c.totals), json::write(a.totals));
            QCOMPARE(toString(c.state), toString(i == 0 ? RunState::Completed : RunState::Interrupted));
            QCOMPARE(toString(c.stage), toString(a.stage));
            QCOMPARE(c.startedAt, a.startedAt);
            QCOMPARE(c.endedAt, a.endedAt);
            QVERIFY(c.owner.isEmpty());
            QVERIFY(!c.cancelRequested);
            const auto as = source.steps(a.id).value();
            const auto cs = ts.steps(c.id).value();
            QCOMPARE(cs.size(), as.size());
            for (qsizetype j = 0; j < as.size(); ++j) {
                const TrajectoryStep& x = as[j];
                const TrajectoryStep& y = cs[j];
                QCOMPARE(y.runId, c.id);
                km::test::compareStepContent(y, x);
                if (QTest::currentTestFailed())
                    return;
                QCOMPARE(y.solutionId != 0, x.solutionId != 0);
                QCOMPARE(y.verdictId != 0, x.verdictId != 0);
                if (x.id == a.bestStepId)
                    QCOMPARE(c.bestStepId, y.id);
                if (!x.verdictId)
                    continue;
                const Verdict vx = sourceVerdicts.verdict(x.verdictId).value().value();
                const Verdict vy = targetVerdicts.verdict(y.verdictId).value().value();
                QCOMPARE(json::write(verdictFields(vy)), json::write(verdictFields(vx)));
                QCOMPARE(vy.solutionId, y.solutionId);
                QCOMPARE(scalar(target->database(),
                                QStringLiteral("SELECT step_id FROM solutions WHERE id = %1 AND origin = 'agent'")
                                    .arg(y.solutionId)),
                         y.id);
            }
            QVERIFY(a.bestStepId == 0 || c.bestStepId != 0);
            auto audit = target->audit("run", QString::number(c.id));
            VERIFY_OK(audit);
            QCOMPARE(audit->size(), 1);
            QCOMPARE(audit->first().action, QStringLiteral("imported"));
            QCOMPARE(audit->first().reason, kLabel);
        }

        // Again: every run is skipped as the run stored first; nothing is written.
        const QString before = counts(*target);
        for (int i = 0; i < 2; ++i) {
            auto again = importInto(*target, read->runs[i]);
            VERIFY_OK(again);
            QVERIFY(again->skipped);
            QCOMPARE(again->runId, ids[i]);
        }
        QCOMPARE(counts(*target), before);
        // Into the store it came from: the same runs are recognised by their content.
        const QString sourceBefore = counts(*m_source);
        for (int i = 0; i < 2; ++i) {
            auto home = importInto(*m_source, read->runs[i]);
            VERIFY_OK(home);
            QVERIFY(home->skipped);
            QCOMPARE(home->runId, m_runIds[i]);
        }
        QCOMPARE(counts(*m_source), sourceBefore);
    }

    void aMissingTaskFailsThatRunOnly()
    {
        TrajectoryStore source(m_source->database());
        auto bundled = source.bundledRuns({{}, "relu"});
        VERIFY_OK(bundled);
        QCOMPARE(bundled->size(), 1);
        auto read = readTrajectoryBundle(writeTrajectoryBundle({kLabel, {}, {}, bundled.value()}));
        VERIFY_OK(read);
        auto target = openStore(newPath());
        VERIFY_OK(target->upsertTasks(filterTasks().mid(1), "test", "seed"));  // all but relu
        const QString before = counts(*target);
        auto r = importInto(*target, read->runs[0]);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::NotFound);
        QCOMPARE(r.error().message, QStringLiteral("task 'relu' is not in the store; import the tasks first"));
        QCOMPARE(counts(*target), before);
        QCOMPARE(source.bundledRuns({{12345}, {}}).error().code, ErrorCode::NotFound);
    }

    void aRunFailingMidwayLeavesNothing()
    {
        auto bundled = TrajectoryStore(m_source->database()).bundledRuns({{m_runIds[0]}, {}});
        VERIFY_OK(bundled);
        BundledRun broken = bundled->first();
        broken.origin = trajectoryOrigin(broken);
        broken.run.startedAt = broken.run.startedAt.addSecs(1);  // not the run stored here
        broken.steps[2].step.stage = static_cast<Stage>(99);     // no text: the schema's CHECK refuses the last step
        const QString before = counts(*m_source);
        auto r = importInto(*m_source, broken);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Database);
        QCOMPARE(counts(*m_source), before);
    }

    void throughTheBinary()
    {
        const QString bundle = m_dir.filePath("bundle.json");
        const QString source = m_source->path();
        auto run = [](const QStringList& args) {
            return km::test::runKmosaic(args, 60000);
        };
        auto r = run({"--db", source, "agent", "export", "--all", "-o", bundle, "--label", kLabel});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(r.out, QStringLiteral("exported 2 run(s), 4 step(s) to %1\n").arg(bundle));
        QVERIFY(r.err.contains("is still running; it is exported as it is now"));
        QCOMPARE(run({"--db", source, "agent", "export", "-o", bundle}).code, 2);
        QCOMPARE(run({"--db", source, "agent", "export", "1", "--all", "-o", bundle}).code, 2);
        QCOMPARE(run({"--db", source, "agent", "export", "--all"}).code, 2);

        auto target = openStore(newPath());
        VERIFY_OK(target->upsertTasks(filterTasks(), "test", "seed"));
        r = run({"--db", target->path(), "agent", "import", bundle});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("run 1 (relu, 3 steps): imported as id 1\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains(": 2 imported, 0 skipped, 0 failed\n"), qPrintable(r.out));
        r = run({"--db", target->path(), "agent", "import", bundle});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("run 2 (softmax-rows, 1 step): skipped (already imported as id 2)\n"),
                 qPrintable(r.out));
        r = run({"--db", target->path(), "agent", "show", "1"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("provenance: " + kLabel + " (imported "), qPrintable(r.out));
        r = run({"--db", target->path(), "agent", "list"});
        QVERIFY2(r.out.contains("llm, imported"), qPrintable(r.out));

        auto noRelu = openStore(newPath());
        VERIFY_OK(noRelu->upsertTasks(filterTasks().mid(1), "test", "seed"));
        r = run({"--db", noRelu->path(), "agent", "import", "--json", bundle});
        QCOMPARE(r.code, 1);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QVariantMap first = json::parse(lines[0].toUtf8(), nullptr).value_or(QVariant()).toMap();
        QCOMPARE(first.value("outcome").toString(), QStringLiteral("failed"));
        QCOMPARE(first.value("error").toString(),
                 QStringLiteral("task 'relu' is not in the store; import the tasks first"));
        QCOMPARE(json::parse(lines[1].toUtf8(), nullptr)->toMap().value("outcome").toString(),
                 QStringLiteral("imported"));

        QFile corrupt(m_dir.filePath("corrupt.json"));
        QVERIFY(corrupt.open(QIODevice::WriteOnly));
        corrupt.write(fileBytes(bundle).left(300));
        corrupt.close();
        const QString before = counts(*target);
        r = run({"--db", target->path(), "agent", "import", corrupt.fileName()});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("corrupt.json: not valid JSON: line 3, column "), qPrintable(r.err));
        QCOMPARE(counts(*target), before);
    }

private:
    std::unique_ptr<TaskStore> m_source;
    QList<qint64> m_runIds;
};

QTEST_GUILESS_MAIN(TestTrajectoryImport)
#include "test_trajectory_import.moc"
