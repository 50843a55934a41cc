// What the runs and replay views read (store/RunQuery): on a real store holding the bundled tasks, the shipped H200
// demonstrations and two runs recorded here (one interrupted), every field of a known run and step, newest first,
// NotFound for unknown ids, and the previous code of a step.
#include "../common/RunSeed.h"
#include "StoreTestSupport.h"
#include "store/RunQuery.h"

using namespace km::storetest;

namespace {
const RunSummary* find(const QList<RunSummary>& runs, const QString& taskId)
{
    for (const RunSummary& r : runs)
        if (r.taskId == taskId)
            return &r;
    return nullptr;
}
}  // namespace

class TestRunQuery : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto s = TaskStore::open(m_dir.filePath("runs.sqlite"));
        VERIFY_OK(s);
        m_store = std::move(s).value();
        const QString error = test::seedRuns(*m_store, m_seed);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(m_seed.imported, 6);
    }

    void everyRunNewestFirst()
    {
        auto runs = runSummaries(m_store->database());
        VERIFY_OK(runs);
        QCOMPARE(runs.value().size(), 8);
        for (int i = 1; i < runs.value().size(); ++i)
            QVERIFY(runs.value()[i - 1].startedAt >= runs.value()[i].startedAt);
        // The two recorded here started last.
        QCOMPARE(runs.value()[0].id, m_seed.interruptedRunId);
        QCOMPARE(runs.value()[1].id, m_seed.llmRunId);
        int steps = 0;
        for (const RunSummary& r : runs.value())
            steps += r.steps;
        QCOMPARE(steps, 14 + 2 + 1);
    }

    void importedRunEveryField()
    {
        auto runs = runSummaries(m_store->database());
        VERIFY_OK(runs);
        const RunSummary* gelu = find(runs.value(), "gelu-tanh");
        QVERIFY(gelu);
        QVERIFY(gelu->id > 0);
        QCOMPARE(gelu->taskTitle, QString("GELU (tanh approximation) over a large fp32 activation tensor"));
        QCOMPARE(gelu->kind, QString("manual"));
        QCOMPARE(gelu->model, QString());
        QCOMPARE(gelu->replySource, QString("manual folder"));
        QCOMPARE(toString(gelu->state), toString(RunState::Completed));
        QCOMPARE(toString(gelu->stage), toString(Stage::Optimise));
        QCOMPARE(gelu->steps, 3);
        QCOMPARE(gelu->bestStatus, QString("PASSED"));
        QVERIFY(gelu->bestSpeedup.has_value());
        QVERIFY(qAbs(*gelu->bestSpeedup - 9.793245150417102) < 1e-9);
        QCOMPARE(gelu->tokens, 0);
        QCOMPARE(gelu->label, QString("team-authored demonstration"));
        QCOMPARE(gelu->error, QString());
        QCOMPARE(gelu->startedAt, QDateTime::fromString("2026-12-03T01:38:16.401Z", Qt::ISODateWithMs));
        QCOMPARE(gelu->endedAt, QDateTime::fromString("2026-12-03T06:19:38.572Z", Qt::ISODateWithMs));
        QCOMPARE(gelu->wallMs, gelu->startedAt.msecsTo(gelu->endedAt));

        // rmsnorm's best step is its second (3.85x), not its last (3.62x): the best step's speedup is shown.
        const RunSummary* rms = find(runs.value(), "rmsnorm");
        QVERIFY(rms && rms->bestSpeedup);
        QVERIFY(qAbs(*rms->bestSpeedup - 3.8463549951656315) < 1e-9);
        // runSummary reads the same row alone.
        auto one = runSummary(m_store->database(), gelu->id);
        VERIFY_OK(one);
        QCOMPARE(one.value().steps, 3);
        QCOMPARE(one.value().replySource, gelu->replySource);
        QCOMPARE(one.value().bestSpeedup, gelu->bestSpeedup);
    }

    void recordedRuns()
    {
        auto llm = runSummary(m_store->database(), m_seed.llmRunId);
        VERIFY_OK(llm);
        const RunSummary& r = llm.value();
        QCOMPARE(r.taskId, QString("clamp-scale"));
        QVERIFY(!r.taskTitle.isEmpty());
        QCOMPARE(r.kind, QString("llm"));
        QCOMPARE(r.model, QString("gpt-test"));
        QCOMPARE(r.replySource, QString("model gpt-test"));
        QCOMPARE(toString(r.state), toString(RunState::Completed));
        QCOMPARE(toString(r.stage), toString(Stage::Repair));
        QCOMPARE(r.steps, 2);
        QCOMPARE(r.bestStatus, QString("PASSED"));
        QCOMPARE(r.bestSpeedup, std::optional<double>(2.5));
        QCOMPARE(r.tokens, 100 + 10 + 101 + 20);
        QCOMPARE(r.label, QString());  // made here
        QVERIFY(r.startedAt.isValid());
        QVERIFY(r.endedAt.isValid());
        QCOMPARE(r.wallMs, r.startedAt.msecsTo(r.endedAt));

        auto cut = runSummary(m_store->database(), m_seed.interruptedRunId);
        VERIFY_OK(cut);
        QCOMPARE(toString(cut.value().state), toString(RunState::Interrupted));
        QCOMPARE(cut.value().replySource, QString("manual command"));
        QCOMPARE(cut.value().model, QString());
        QCOMPARE(cut.value().steps, 1);
        QCOMPARE(cut.value().bestStatus, QString());  // no verdict at all
        QVERIFY(!cut.value().bestSpeedup);
        QCOMPARE(cut.value().tokens, 10);
        QCOMPARE(cut.value().error, QString("the process running it ended without finishing it"));
    }

    void latestStatusWithoutBestStep()
    {
        // column-max: REWARD_HACK then PASSED, best step the pass; its REWARD_HACK step is in the step summaries.
        auto runs = runSummaries(m_store->database());
        VERIFY_OK(runs);
        const RunSummary* col = find(runs.value(), "column-max");
        QVERIFY(col);
        QCOMPARE(col->bestStatus, QString("PASSED"));
        auto steps = stepSummaries(m_store->database(), col->id);
        VERIFY_OK(steps);
        QCOMPARE(steps.value().size(), 2);
        QCOMPARE(steps.value()[0].status, QString("REWARD_HACK"));
        // A run whose steps never passed shows its latest step's status (no best step recorded).
        VERIFY_OK(m_store->database().exec("UPDATE runs SET best_step_id = NULL WHERE id = ?", {m_seed.llmRunId}));
        VERIFY_OK(m_store->database().exec("UPDATE trajectory_steps SET status = 'RUNTIME_ERROR', speedup = NULL "
                                           "WHERE id = ?",
                                           {m_seed.llmSecondStepId}));
        auto llm = runSummary(m_store->database(), m_seed.llmRunId);
        VERIFY_OK(llm);
        QCOMPARE(llm.value().bestStatus, QString("RUNTIME_ERROR"));
        QVERIFY(!llm.value().bestSpeedup);
        VERIFY_OK(m_store->database().exec("UPDATE runs SET best_step_id = ? WHERE id = ?",
                                           {m_seed.llmSecondStepId, m_seed.llmRunId}));
        VERIFY_OK(m_store->database().exec("UPDATE trajectory_steps SET status = 'PASSED', speedup = 2.5 WHERE id = ?",
                                           {m_seed.llmSecondStepId}));
    }

    void stepSummariesEveryField()
    {
        auto steps = stepSummaries(m_store->database(), m_seed.llmRunId);
        VERIFY_OK(steps);
        QCOMPARE(steps.value().size(), 2);
        const StepSummary& a = steps.value()[0];
        QCOMPARE(a.id, m_seed.llmFirstStepId);
        QCOMPARE(a.runId, m_seed.llmRunId);
        QCOMPARE(a.idx, 0);
        QCOMPARE(toString(a.stage), toString(Stage::Implement));
        QCOMPARE(a.templateName, QString("implement"));
        QCOMPARE(a.status, QString("COMPILE_ERROR"));
        QVERIFY(!a.speedup);
        QCOMPARE(a.summary, QString("summary of COMPILE_ERROR"));
        QCOMPARE(a.tokensIn, 100);
        QCOMPARE(a.tokensOut, 10);
        QCOMPARE(a.latencyMs, 1000);
        QCOMPARE(a.verifyMs, 2000);
        QVERIFY(a.solutionId > 0);
        QVERIFY(a.verdictId > 0);
        QCOMPARE(a.codeLines, 2);
        QVERIFY(a.createdAt.isValid());
        const StepSummary& b = steps.value()[1];
        QCOMPARE(b.idx, 1);
        QCOMPARE(toString(b.stage), toString(Stage::Repair));
        QCOMPARE(b.status, QString("PASSED"));
        QCOMPARE(b.speedup, std::optional<double>(2.5));
        QCOMPARE(b.codeLines, 3);

        auto cut = stepSummaries(m_store->database(), m_seed.interruptedRunId);
        VERIFY_OK(cut);
        QCOMPARE(cut.value().size(), 1);
        QCOMPARE(cut.value()[0].error, QString("the reply had no code block"));  // one line
        QCOMPARE(cut.value()[0].codeLines, 0);
        QCOMPARE(cut.value()[0].solutionId, 0);
        QCOMPARE(cut.value()[0].verdictId, 0);
        QCOMPARE(cut.value()[0].templateName, QString("no_code"));
    }

    void stepDetailAndCode()
    {
        auto first = stepDetail(m_store->database(), m_seed.llmFirstStepId);
        VERIFY_OK(first);
        QCOMPARE(first.value().step.prompt, QString("prompt 0"));
        QCOMPARE(first.value().step.reply, QString("reply 0"));
        QCOMPARE(first.value().step.code, QString("class ModelNew:\n  bad\n"));
        QCOMPARE(first.value().previousCode, QString());
        QVERIFY(first.value().verdict.has_value());
        QCOMPARE(toString(first.value().verdict->status), toString(VerdictStatus::CompileError));
        QCOMPARE(first.value().verdict->diagnostics.size(), 1);
        QCOMPARE(first.value().verdict->diagnostics[0].line, 3);

        auto second = stepDetail(m_store->database(), m_seed.llmSecondStepId);
        VERIFY_OK(second);
        QCOMPARE(second.value().previousCode, QString("class ModelNew:\n  bad\n"));
        QCOMPARE(second.value().verdict->speedup, std::optional<double>(2.5));

        // row-sum: step 0 had no code, step 1 did: its previous code is empty (nothing earlier had code).
        auto runs = runSummaries(m_store->database());
        VERIFY_OK(runs);
        const RunSummary* rowSum = find(runs.value(), "row-sum");
        QVERIFY(rowSum);
        auto steps = stepSummaries(m_store->database(), rowSum->id);
        VERIFY_OK(steps);
        auto noCode = stepDetail(m_store->database(), steps.value()[0].id);
        VERIFY_OK(noCode);
        QVERIFY(!noCode.value().verdict);
        QCOMPARE(noCode.value().step.code, QString());
        auto withCode = stepDetail(m_store->database(), steps.value()[1].id);
        VERIFY_OK(withCode);
        QCOMPARE(withCode.value().previousCode, QString());
        QVERIFY(withCode.value().step.code.contains("ModelNew"));
        QCOMPARE(steps.value()[1].codeLines,
                 int(withCode.value().step.code.count('\n')) + (withCode.value().step.code.endsWith('\n') ? 0 : 1));

        auto code = stepCode(m_store->database(), m_seed.llmSecondStepId);
        VERIFY_OK(code);
        QCOMPARE(code.value(), QString("class ModelNew:\n  good\n  x = 1\n"));
    }

    // The summaries read the steps through the covering index only: a plan that looked up a step row would read
    // its long texts (SQLite walks them to reach the columns after them).
    void summaryPlanReadsNoStepRow()
    {
        for (bool oneRun : {false, true}) {
            QVariantList bindings;
            if (oneRun)
                bindings << m_seed.llmRunId << m_seed.llmRunId;
            auto plan = m_store->database().exec("EXPLAIN QUERY PLAN " + runSummarySql(oneRun), bindings);
            VERIFY_OK(plan);
            QStringList steps;
            while (plan.value().next()) {
                const QString detail = plan.value().value(3).toString();
                if (detail.contains("trajectory_steps") || detail.contains(QRegularExpression("^(SCAN|SEARCH) l\\b")))
                    steps << detail;
            }
            QVERIFY(steps.size() >= 4);  // the aggregate, the best step twice, the latest step
            for (const QString& d : steps)
                QVERIFY2(d.contains("USING COVERING INDEX steps_for_summary"), qPrintable(d));
        }
    }

    void unknownIds()
    {
        QCOMPARE(int(runSummary(m_store->database(), 99999).error().code), int(ErrorCode::NotFound));
        QCOMPARE(int(stepSummaries(m_store->database(), 99999).error().code), int(ErrorCode::NotFound));
        QCOMPARE(int(stepDetail(m_store->database(), 99999).error().code), int(ErrorCode::NotFound));
        QCOMPARE(int(stepCode(m_store->database(), 99999).error().code), int(ErrorCode::NotFound));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    test::SeededRuns m_seed;
};

QTEST_GUILESS_MAIN(TestRunQuery)
#include "test_run_query.moc"
