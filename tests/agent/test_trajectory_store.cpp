// Agent runs and steps in the store: a step with its solution and verdict in one transaction (a failed write leaves
// nothing), runs of a dead process become interrupted, cancel requests, resume claims, and the loop state rebuilt
// from stored steps (what a resumed run continues from).
#include "../core/StoreTestSupport.h"
#include "agent/AgentState.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"

#include <QProcess>

using namespace km::storetest;

namespace {
TrajectoryStep step(int idx, Stage stage, const QString& code, const QString& error = {})
{
    TrajectoryStep s;
    s.idx = idx;
    s.stage = stage;
    s.templateName = toString(stage);
    s.prompt = QStringLiteral("prompt %1").arg(idx);
    s.reply = QStringLiteral("reply %1").arg(idx);
    s.code = code;
    s.error = error;
    s.tokensIn = 100;
    s.tokensOut = 10 * (idx + 1);
    s.latencyMs = 1000;
    s.verifyMs = 2000;
    s.guidance = {QStringLiteral("memory-coalescing")};
    s.usage = {{QStringLiteral("attempts"), 2}};
    s.messages = {
        QVariantMap{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), s.prompt}},
        QVariantMap{{QStringLiteral("role"), QStringLiteral("assistant")}, {QStringLiteral("content"), s.reply}}};
    return s;
}

Verdict verdict(VerdictStatus status, std::optional<double> speedup)
{
    Verdict v;
    v.status = status;
    v.summary = QStringLiteral("summary of %1").arg(toString(status));
    v.speedup = speedup;
    v.evidence = {{QStringLiteral("failure"), QVariantMap{{QStringLiteral("config"), QStringLiteral("small")}}}};
    return v;
}
}  // namespace

class TestTrajectoryStore : public QObject {
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

    void stepsAreStoredWithSolutionVerdictAndBest()
    {
        TrajectoryStore ts(m_store->database());
        AgentRun r;
        r.taskId = "relu";
        r.kind = "manual";
        r.settings = {{"source", QVariantMap{{"kind", "manual"}, {"dir", "/x"}}}};
        auto run = ts.createRun(r, "test");
        VERIFY_OK(run);
        QCOMPARE(toString(run->state), toString(RunState::Running));
        QCOMPARE(run->owner, TrajectoryStore::thisOwner());

        AgentRun cur = run.value();
        auto s0 = ts.recordStep(cur, step(0, Stage::Implement, {}, "no code block"), std::nullopt, false, "test");
        VERIFY_OK(s0);
        QCOMPARE(s0->solutionId, qint64(0));
        cur.stage = Stage::Repair;
        auto s1 = ts.recordStep(cur, step(1, Stage::Repair, "class ModelNew: pass\n"),
                                verdict(VerdictStatus::Passed, 1.5), true, "test");
        VERIFY_OK(s1);
        QVERIFY(s1->solutionId > 0);
        QVERIFY(s1->verdictId > 0);

        auto steps = ts.steps(run->id);
        VERIFY_OK(steps);
        QCOMPARE(steps->size(), 2);
        const TrajectoryStep& back = steps->at(1);
        QCOMPARE(back.status, QStringLiteral("PASSED"));
        QCOMPARE(back.speedup.value_or(0), 1.5);
        QCOMPARE(back.guidance, QVariantList{QStringLiteral("memory-coalescing")});
        QCOMPARE(back.usage.value("attempts").toInt(), 2);
        QCOMPARE(back.prompt, QStringLiteral("prompt 1"));
        QCOMPARE(steps->at(0).error, QStringLiteral("no code block"));

        auto stored = ts.run(run->id);
        VERIFY_OK(stored);
        QCOMPARE(stored.value()->bestStepId, s1->id);
        QCOMPARE(toString(stored.value()->stage), toString(Stage::Repair));
        QCOMPARE(scalar(m_store->database(),
                        QStringLiteral("SELECT step_id FROM solutions WHERE id = %1").arg(s1->solutionId)),
                 s1->id);
        QCOMPARE(scalar(m_store->database(), "SELECT COUNT(*) FROM solutions WHERE origin = 'agent'"), qint64(1));
        VerdictStore vs(m_store->database());
        auto v = vs.verdict(s1->verdictId);
        VERIFY_OK(v);
        QCOMPARE(v.value()->summary, QStringLiteral("summary of PASSED"));
    }

    void aFailedStepWritesNothing()
    {
        TrajectoryStore ts(m_store->database());
        AgentRun r;
        r.taskId = "relu";
        auto run = ts.createRun(r, "test");
        VERIFY_OK(run);
        VERIFY_OK(ts.recordStep(run.value(), step(0, Stage::Implement, "a\n"), verdict(VerdictStatus::CompileError, {}),
                                false, "test"));
        const qint64 verdicts = scalar(m_store->database(), "SELECT COUNT(*) FROM verdicts");
        const qint64 solutions = scalar(m_store->database(), "SELECT COUNT(*) FROM solutions");
        // The same index again violates UNIQUE(run_id, idx): the new solution and verdict are rolled back with it.
        auto again = ts.recordStep(run.value(), step(0, Stage::Repair, "b\n"), verdict(VerdictStatus::Passed, 2.0),
                                   true, "test");
        QVERIFY(!again.ok());
        QCOMPARE(scalar(m_store->database(), "SELECT COUNT(*) FROM verdicts"), verdicts);
        QCOMPARE(scalar(m_store->database(), "SELECT COUNT(*) FROM solutions"), solutions);
        QCOMPARE(ts.run(run->id).value().value().bestStepId, qint64(0));
    }

    void deadOwnersAreInterruptedAndResumable()
    {
        TrajectoryStore ts(m_store->database());
        AgentRun r;
        r.taskId = "relu";
        auto live = ts.createRun(r, "test");
        auto dead = ts.createRun(r, "test");
        VERIFY_OK(live);
        VERIFY_OK(dead);
        QProcess p;  // a pid that existed and is gone
        p.start(QStringLiteral("/bin/true"));
        QVERIFY(p.waitForFinished());
        const qint64 gonePid = p.processId() ? p.processId() : 999999;
        VERIFY_OK(m_store->database().exec(
            "UPDATE runs SET owner = ? WHERE id = ?",
            {QStringLiteral("%1@%2").arg(gonePid).arg(QSysInfo::machineHostName()), dead->id}));
        auto marked = ts.markDeadRunsInterrupted();
        VERIFY_OK(marked);
        QCOMPARE(marked.value(), QList<qint64>{dead->id});
        QCOMPARE(toString(ts.run(dead->id).value().value().state), toString(RunState::Interrupted));
        QCOMPARE(toString(ts.run(live->id).value().value().state), toString(RunState::Running));

        // A live run cannot be claimed; an interrupted one can, once.
        QCOMPARE(ts.claimForResume(live->id).error().code, ErrorCode::Conflict);
        auto claimed = ts.claimForResume(dead->id);
        VERIFY_OK(claimed);
        QCOMPARE(toString(claimed->state), toString(RunState::Running));
        QCOMPARE(claimed->owner, TrajectoryStore::thisOwner());
        QCOMPARE(ts.claimForResume(dead->id).error().code, ErrorCode::Conflict);
        VERIFY_OK(ts.finishRun(dead->id, RunState::Completed, {}, {}));
        QCOMPARE(ts.claimForResume(dead->id).error().code, ErrorCode::Conflict);
    }

    void cancelIsAFlagOnRunningRuns()
    {
        TrajectoryStore ts(m_store->database());
        AgentRun r;
        r.taskId = "relu";
        auto run = ts.createRun(r, "test");
        VERIFY_OK(run);
        QCOMPARE(ts.cancelRequested(run->id).value(), false);
        VERIFY_OK(ts.requestCancel(run->id));
        QCOMPARE(ts.cancelRequested(run->id).value(), true);
        VERIFY_OK(ts.finishRun(run->id, RunState::Cancelled, {}, {}));
        QCOMPARE(ts.requestCancel(run->id).error().code, ErrorCode::Conflict);
        QCOMPARE(ts.requestCancel(12345).error().code, ErrorCode::NotFound);
        QCOMPARE(ts.createRun(AgentRun{}, "test").error().code, ErrorCode::NotFound);  // no task
    }

    void unknownStateOrStageInTheStoreIsDamaged()
    {
        TrajectoryStore ts(m_store->database());
        AgentRun r;
        r.taskId = "relu";
        auto run = ts.createRun(r, "test");
        VERIFY_OK(run);
        VERIFY_OK(ts.recordStep(run.value(), step(0, Stage::Implement, {}, "no code"), std::nullopt, false, "test"));
        // Only another program could write these: the schema's CHECKs (where there is one) are switched off for it.
        VERIFY_OK(m_store->database().exec("PRAGMA ignore_check_constraints = ON"));
        VERIFY_OK(m_store->database().exec("UPDATE runs SET state = 'paused' WHERE id = ?", {run->id}));
        auto read = ts.run(run->id);
        QVERIFY(!read.ok());
        QCOMPARE(read.error().message,
                 QStringLiteral("agent run %1 in the store is damaged: unknown run state 'paused'").arg(run->id));
        QVERIFY(!ts.runs().ok());
        VERIFY_OK(
            m_store->database().exec("UPDATE runs SET state = 'running', stage = 'debug' WHERE id = ?", {run->id}));
        QVERIFY(ts.run(run->id).error().message.endsWith("unknown stage 'debug'"));
        VERIFY_OK(m_store->database().exec("UPDATE trajectory_steps SET stage = 'debug'"));
        auto steps = ts.steps(run->id);
        QVERIFY(!steps.ok());
        QVERIFY2(steps.error().message.contains("trajectory step") &&
                     steps.error().message.endsWith("unknown stage 'debug'"),
                 qPrintable(steps.error().message));
    }

    void stateIsRebuiltFromStoredSteps()
    {
        TrajectoryStep noCode = step(0, Stage::Implement, {}, "no code");
        noCode.messages.prepend(QVariantMap{{"role", "system"}, {"content", "SYSTEM"}});
        TrajectoryStep wrong = step(1, Stage::Implement, "v1\n");
        wrong.status = "INCORRECT_NUMERICAL";
        TrajectoryStep pass = step(2, Stage::Repair, "v2\n");
        pass.id = 7;
        pass.status = "PASSED";
        pass.speedup = 1.2;
        TrajectoryStep slower = step(3, Stage::Optimise, "v3\n");
        slower.status = "PASSED";
        slower.speedup = 1.1;
        const LoopState s = stateAfter({noCode, wrong, pass, slower});
        QCOMPARE(s.conversation.size(), 9);  // system + 4 x (user, assistant)
        QCOMPARE(s.conversation[0].content, QStringLiteral("SYSTEM"));
        QCOMPARE(s.conversation[2].content, QStringLiteral("reply 0"));
        QCOMPARE(s.nextIdx, 4);
        QCOMPARE(s.lastCode, QStringLiteral("v3\n"));
        QVERIFY(s.passed);
        QCOMPARE(s.bestSpeedup.value_or(0), 1.2);
        QCOMPARE(s.bestStepId, qint64(7));
        QCOMPARE(s.sinceImprovement, 1);
        QCOMPARE(toString(nextStage(s)), toString(Stage::Optimise));
        QCOMPARE(toString(nextStage(stateAfter({noCode}))), toString(Stage::Implement));
        QCOMPARE(toString(nextStage(stateAfter({noCode, wrong}))), toString(Stage::Repair));

        AgentBudgets b;
        b.run.turns = 10;
        b.plateau = 1;
        QVERIFY(stopReason(s, b).contains(QLatin1String("no improvement")));
        b.plateau = 3;
        QVERIFY(stopReason(s, b).isEmpty());
        b.targetSpeedup = 1.2;
        QVERIFY(stopReason(s, b).contains(QLatin1String("target")));
        b.targetSpeedup = 0;
        b.run.tokens = 400;  // 4 x 100 in + (10+20+30+40) out = 500
        QVERIFY(stopReason(s, b).contains(QLatin1String("token")));
        b.run.tokens = 0;
        b.optimise.turns = 1;
        QVERIFY(stopReason(s, b).contains(QLatin1String("optimise turn")));
        const QVariantMap round = AgentBudgets::fromVariant(b.toVariant()).toVariant();
        QCOMPARE(json::write(round), json::write(b.toVariant()));
    }

    void aForkTakesOverTheFirstStepsAndLinksBack()
    {
        TrajectoryStore ts(m_store->database());
        AgentRun r;
        r.taskId = "relu";
        r.kind = "manual";
        auto old = ts.createRun(r, "test");
        VERIFY_OK(old);
        AgentRun cur = old.value();
        VERIFY_OK(ts.recordStep(cur, step(0, Stage::Implement, "v0\n"), verdict(VerdictStatus::IncorrectNumerical, {}),
                                false, "test"));
        auto pass =
            ts.recordStep(cur, step(1, Stage::Repair, "v1\n"), verdict(VerdictStatus::Passed, 1.5), true, "test");
        VERIFY_OK(pass);
        VERIFY_OK(
            ts.recordStep(cur, step(2, Stage::Optimise, "v2\n"), verdict(VerdictStatus::Passed, 3.0), true, "test"));
        VERIFY_OK(ts.finishRun(cur.id, RunState::Completed, {}, {{"turns", 3}}));

        AgentRun next;
        next.taskId = "relu";
        next.kind = "llm";
        next.model = "other-model";
        next.stage = Stage::Optimise;
        next.totals = {{"turns", 2}};
        auto forked = ts.forkRun(next, RunFork{cur.id, 2, pass->id}, "test");
        VERIFY_OK(forked);
        QVERIFY(forked->id != cur.id);
        QCOMPARE(toString(forked->state), toString(RunState::Running));
        QCOMPARE(forked->model, QStringLiteral("other-model"));
        const QVariantMap link = forked->settings.value("forked_from").toMap();
        QCOMPARE(link.value("run_id").toLongLong(), cur.id);
        QCOMPARE(link.value("step").toInt(), 2);
        QVERIFY(!link.value("started_at").toString().isEmpty());

        auto steps = ts.steps(forked->id);
        VERIFY_OK(steps);
        QCOMPARE(steps->size(), 2);
        QCOMPARE(steps->at(1).code, QStringLiteral("v1\n"));
        QCOMPARE(steps->at(1).solutionId, pass->solutionId);  // shared, not duplicated
        QCOMPARE(steps->at(1).verdictId, pass->verdictId);
        QCOMPARE(steps->at(1).status, QStringLiteral("PASSED"));
        auto stored = ts.run(forked->id);
        VERIFY_OK(stored);
        QCOMPARE(stored.value()->bestStepId, steps->at(1).id);
        QCOMPARE(toString(stored.value()->stage), toString(Stage::Optimise));
        QCOMPARE(stored.value()->settings.value("forked_from").toMap().value("step").toInt(), 2);
        auto oldSteps = ts.steps(cur.id);
        VERIFY_OK(oldSteps);
        QCOMPARE(oldSteps->size(), 3);  // the old run is untouched

        QCOMPARE(ts.forkRun(next, RunFork{cur.id, 4, 0}, "test").error().code, ErrorCode::InvalidInput);
        QCOMPARE(ts.forkRun(next, RunFork{cur.id, 0, 0}, "test").error().code, ErrorCode::InvalidInput);
        QCOMPARE(ts.forkRun(next, RunFork{9999, 1, 0}, "test").error().code, ErrorCode::NotFound);
        AgentRun otherTask = next;
        otherTask.taskId = "gelu";
        QCOMPARE(ts.forkRun(otherTask, RunFork{cur.id, 1, 0}, "test").error().code, ErrorCode::InvalidInput);
        auto all = ts.runs();
        VERIFY_OK(all);
        QCOMPARE(all->size(), 2);  // a refused fork writes nothing
    }

private:
    QTemporaryDir m_dir;
    int m_n = 0;
    std::unique_ptr<TaskStore> m_store;
};

QTEST_GUILESS_MAIN(TestTrajectoryStore)
#include "test_trajectory_store.moc"
