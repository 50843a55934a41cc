// The runs view and the replay controller, offscreen, on a real store holding the shipped H200 demonstrations and
// two runs recorded here (one interrupted): the models under QAbstractItemModelTester, filters that combine, sorting
// by speedup with a missing one last, a refresh that keeps the selection, the keyboard, and the controller against a
// real StoreWorker (latest step read wins, a step recorded by another connection appears).
#include "../common/RunSeed.h"
#include "StoreWorkerWait.h"
#include "controller/ReplayController.h"
#include "models/RunFilterProxyModel.h"
#include "models/RunTableModel.h"
#include "store/RunQuery.h"
#include "views/RunsView.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;
using namespace km::ui;

namespace {
// The visible rows' task ids, in display order.
QStringList tasks(const QAbstractItemModel& m)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, RunTableModel::Task).data().toString();
    return out;
}

// The imported demonstration of a task (leaky-relu has a run recorded here too).
qint64 idOf(const QList<RunSummary>& runs, const QString& task)
{
    for (const RunSummary& r : runs)
        if (r.taskId == task && !r.label.isEmpty())
            return r.id;
    return 0;
}
}  // namespace

class TestRunsView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto s = TaskStore::open(m_dir.filePath("runs.sqlite"));
        QVERIFY(s.ok());
        m_store = std::move(s).value();
        const QString error = test::seedRuns(*m_store, m_seed);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        auto runs = runSummaries(m_store->database());
        QVERIFY(runs.ok());
        m_runs = runs.value();
        QCOMPARE(m_runs.size(), 8);
    }

    void tableModelUpdatesInPlace()
    {
        RunTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(m_runs);
        QCOMPARE(model.rowCount(), 8);
        QCOMPARE(model.columnCount(), int(RunTableModel::ColumnCount));
        const int geluRow = model.rowOf(idOf(m_runs, "gelu-tanh"));
        QVERIFY(geluRow >= 0);
        QCOMPARE(model.index(geluRow, RunTableModel::BestSpeedup).data().toString(), QString("9.79x"));
        QCOMPARE(model.index(geluRow, RunTableModel::ReplySource).data().toString(), QString("manual folder"));
        QCOMPARE(model.index(geluRow, RunTableModel::Steps).data(RunTableModel::SortRole).toInt(), 3);
        QCOMPARE(model.index(geluRow, RunTableModel::State).data().toString(), QString("completed"));
        QCOMPARE(model.index(geluRow, 0).data(RunTableModel::RunIdRole).toLongLong(), idOf(m_runs, "gelu-tanh"));
        const int cutRow = model.rowOf(m_seed.interruptedRunId);
        QVERIFY(!model.index(cutRow, RunTableModel::BestSpeedup).data(RunTableModel::SortRole).isValid());

        // A persistent index (what a selection holds) follows its run through an update, an insert at the top, a
        // removal and a reorder.
        QPersistentModelIndex gelu(model.index(geluRow, RunTableModel::Task));
        QList<RunSummary> next = m_runs;
        for (RunSummary& r : next)
            if (r.taskId == "gelu-tanh")
                r.steps = 4;
        RunSummary fresh = m_runs.first();
        fresh.id = 9001;
        fresh.taskId = QStringLiteral("fresh-task");
        next.prepend(fresh);
        next.removeIf([](const RunSummary& r) { return r.taskId == "row-sum"; });  // a run is gone
        model.setRuns(next);
        QCOMPARE(model.rowCount(), 8);
        QCOMPARE(model.index(0, RunTableModel::Task).data().toString(), QString("fresh-task"));
        QVERIFY(gelu.isValid());
        QCOMPARE(gelu.data().toString(), QString("gelu-tanh"));
        QCOMPARE(model.index(gelu.row(), RunTableModel::Steps).data().toInt(), 4);
        std::reverse(next.begin(), next.end());
        model.setRuns(next);
        QCOMPARE(model.index(7, RunTableModel::Task).data().toString(), QString("fresh-task"));
        QCOMPARE(gelu.data().toString(), QString("gelu-tanh"));
        QCOMPARE(model.rowOf(9001), 7);
        model.setRuns({});
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!gelu.isValid());
    }

    // A failed run's row says why in plain words; the tooltip keeps the detail. Sorting still sees the state.
    void aFailedRowSaysWhy()
    {
        RunSummary failed;
        failed.id = 41;
        failed.taskId = QStringLiteral("silu");
        failed.state = RunState::Failed;
        failed.error = QStringLiteral("step 1: HTTP 401 Unauthorized from http://127.0.0.1:9/v1");
        RunSummary done = failed;
        done.id = 42;
        done.state = RunState::Completed;
        done.error.clear();
        RunTableModel model;
        model.setRuns({failed, done});
        const QModelIndex state = model.index(0, RunTableModel::State);
        QCOMPARE(state.data().toString(),
                 QString("failed: The endpoint refused the API key (HTTP 401/403): check the provider's key"));
        QVERIFY(state.data(Qt::ToolTipRole).toString().endsWith("HTTP 401 Unauthorized from http://127.0.0.1:9/v1"));
        QCOMPARE(state.data(RunTableModel::SortRole).toString(), QString("failed"));
        QCOMPARE(model.index(1, RunTableModel::State).data().toString(), QString("completed"));
        QVERIFY(model.index(1, RunTableModel::State).data(Qt::ToolTipRole).isNull());
    }

    void filtersCombine()
    {
        RunTableModel model;
        RunFilterProxyModel proxy;
        proxy.setSourceTable(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(m_runs);
        QCOMPARE(proxy.counts().visible, 8);
        RunFilter f;
        f.states = {RunState::Completed};
        proxy.setFilter(f);
        QCOMPARE(proxy.counts().visible, 7);  // not the interrupted one
        QCOMPARE(proxy.counts().total, 8);
        f.label = QStringLiteral("team-authored demonstration");
        proxy.setFilter(f);
        QCOMPARE(proxy.rowCount(), 6);
        f.speedupMin = 3.0;
        proxy.setFilter(f);
        QStringList fast = tasks(proxy);
        fast.sort();
        QCOMPARE(fast, QStringList({"gelu-tanh", "leaky-relu", "rmsnorm"}));
        f.speedupMax = 5.0;
        proxy.setFilter(f);
        fast = tasks(proxy);
        fast.sort();
        QCOMPARE(fast, QStringList({"leaky-relu", "rmsnorm"}));
        f.search = QStringLiteral("NORM");  // case-insensitive, task id or title
        proxy.setFilter(f);
        QCOMPARE(tasks(proxy), QStringList({"rmsnorm"}));
        f.task = QStringLiteral("gelu");
        proxy.setFilter(f);
        QCOMPARE(proxy.rowCount(), 0);

        RunFilter source;
        source.replySources = {QStringLiteral("model gpt-test")};
        proxy.setFilter(source);
        QCOMPARE(tasks(proxy), QStringList({"clamp-scale"}));
        source.replySources << QStringLiteral("manual command");
        proxy.setFilter(source);
        QCOMPARE(proxy.rowCount(), 2);
        RunFilter noVerdict;
        noVerdict.bestStatuses = {QString()};
        proxy.setFilter(noVerdict);
        QCOMPARE(tasks(proxy), QStringList({"leaky-relu"}));
        RunFilter error;
        error.search = QStringLiteral("without finishing");  // the error text
        proxy.setFilter(error);
        QCOMPARE(proxy.rowCount(), 1);
        error.search = QStringLiteral("gpt-test clamp");  // words: every one must match
        proxy.setFilter(error);
        QCOMPARE(tasks(proxy), QStringList({"clamp-scale"}));
        error.search = QStringLiteral("gpt-test gelu");
        proxy.setFilter(error);
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setFilter({});
        QCOMPARE(proxy.rowCount(), 8);
    }

    void sortsBySpeedupMissingLast()
    {
        RunTableModel model;
        RunFilterProxyModel proxy;
        proxy.setSourceTable(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(m_runs);
        proxy.sort(RunTableModel::BestSpeedup, Qt::AscendingOrder);
        QCOMPARE(tasks(proxy), QStringList({"softmax-rows", "row-sum", "column-max", "clamp-scale", "leaky-relu",
                                            "rmsnorm", "gelu-tanh", "leaky-relu"}));
        QCOMPARE(proxy.index(7, 0).data(RunTableModel::RunIdRole).toLongLong(), m_seed.interruptedRunId);
        proxy.sort(RunTableModel::BestSpeedup, Qt::DescendingOrder);
        QCOMPARE(tasks(proxy), QStringList({"gelu-tanh", "rmsnorm", "leaky-relu", "clamp-scale", "column-max",
                                            "row-sum", "softmax-rows", "leaky-relu"}));
        QCOMPARE(proxy.index(7, 0).data(RunTableModel::RunIdRole).toLongLong(), m_seed.interruptedRunId);
        proxy.sort(RunTableModel::Steps, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, RunTableModel::Steps).data().toInt(), 3);
        QCOMPARE(proxy.index(7, RunTableModel::Steps).data().toInt(), 1);
    }

    void viewKeyboardAndCount()
    {
        RunsView view;
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setRuns(m_runs);
        auto* table = view.findChild<QTableView*>("runTable");
        auto* count = view.findChild<QLabel*>("runCount");
        QVERIFY(table && count);
        QCOMPARE(count->text(), QString("8 of 8 runs"));
        table->sortByColumn(RunTableModel::BestSpeedup, Qt::DescendingOrder);
        QSignalSpy current(&view, &RunsView::currentRunChanged);
        QSignalSpy activated(&view, &RunsView::runActivated);
        const qint64 gelu = idOf(m_runs, "gelu-tanh");
        const qint64 rms = idOf(m_runs, "rmsnorm");
        QVERIFY(view.selectRun(gelu));
        QCOMPARE(view.currentRunId(), gelu);
        QCOMPARE(current.last().at(0).toLongLong(), gelu);
        table->setFocus();
        QTest::keyClick(table, Qt::Key_Down);
        QCOMPARE(view.currentRunId(), rms);
        QCOMPARE(current.last().at(0).toLongLong(), rms);
        QTest::keyClick(table, Qt::Key_Up);
        QCOMPARE(view.currentRunId(), gelu);
        QTest::keyClick(table, Qt::Key_Return);
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.last().at(0).toLongLong(), gelu);
        // A double click on another row opens that run.
        const QRect second = table->visualRect(table->model()->index(1, RunTableModel::Task));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, second.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, second.center());
        QCOMPARE(activated.size(), 2);
        QCOMPARE(activated.last().at(0).toLongLong(), rms);
        QVERIFY(view.selectRun(gelu));
        view.nextRun();
        view.nextRun();
        QCOMPARE(view.currentRunId(), idOf(m_runs, "leaky-relu"));
        view.previousRun();
        QCOMPARE(view.currentRunId(), rms);
        for (int i = 0; i < 10; ++i)
            view.nextRun();  // stays on the last row: the run without a speedup
        QCOMPARE(view.currentRunId(), m_seed.interruptedRunId);

        // A live refresh (a new run, a run with one more step) keeps the current run current.
        QVERIFY(view.selectRun(rms));
        const int signalsBefore = int(current.size());
        QList<RunSummary> next = m_runs;
        RunSummary fresh = m_runs.first();
        fresh.id = 9002;
        fresh.taskId = QStringLiteral("fresh-task");
        next.prepend(fresh);
        view.setRuns(next);
        QCOMPARE(view.currentRunId(), rms);
        QCOMPARE(int(current.size()), signalsBefore);  // no change was announced
        QCOMPARE(count->text(), QString("9 of 9 runs"));

        // A filter that keeps the current run keeps it current (one layout change, the selection follows).
        view.setTaskFilter(QStringLiteral("rms"));
        QCOMPARE(view.currentRunId(), rms);
        QCOMPARE(count->text(), QString("1 of 9 runs"));
        view.setTaskFilter({});
        QCOMPARE(view.currentRunId(), rms);
        view.setTaskFilter(QStringLiteral("gelu"));
        QCOMPARE(count->text(), QString("1 of 9 runs"));
        QCOMPARE(view.findChild<QLineEdit*>("runTaskFilter")->text(), QString("gelu"));
        // Typing in the search box filters too, combined with the task.
        view.setTaskFilter({});
        QTest::keyClicks(view.findChild<QLineEdit*>("runSearch"), "demonstration");
        QCOMPARE(view.counts().visible, 6);
        // Selecting a run the filter hides clears the filter.
        QVERIFY(view.selectRun(m_seed.llmRunId));
        QCOMPARE(view.currentRunId(), m_seed.llmRunId);
        QCOMPARE(view.counts().visible, 9);
        QVERIFY(!view.selectRun(123456));
    }

    void controllerOpensRunAndSteps()
    {
        auto worker = test::openWorker(m_store->path());
        ReplayController c(*worker);
        QSignalSpy runs(&c, &ReplayController::runsChanged);
        QSignalSpy opened(&c, &ReplayController::runOpened);
        QSignalSpy loaded(&c, &ReplayController::stepLoaded);
        QSignalSpy failed(&c, &ReplayController::failed);
        c.reload();
        QVERIFY(test::settle(*worker));
        QCOMPARE(runs.size(), 1);
        QCOMPARE(c.runs().size(), 8);

        c.openRun(m_seed.llmRunId);
        QVERIFY(test::settle(*worker));
        QCOMPARE(opened.size(), 1);
        QVERIFY(c.currentRun());
        QCOMPARE(c.currentRun()->model, QString("gpt-test"));
        QCOMPARE(c.steps().size(), 2);
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(c.currentStepIndex(), 0);
        QVERIFY(c.currentStep() && c.currentStep()->verdict);
        QCOMPARE(toString(c.currentStep()->verdict->status), toString(VerdictStatus::CompileError));

        // Fast step changes: only the latest is answered.
        loaded.clear();
        c.nextStep();
        c.previousStep();
        c.nextStep();
        c.nextStep();  // past the last: ignored
        QVERIFY(test::settle(*worker));
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(c.currentStepIndex(), 1);
        QCOMPARE(c.currentStep()->step.id, m_seed.llmSecondStepId);
        QCOMPARE(c.currentStep()->previousCode, QString("class ModelNew:\n  bad\n"));

        QSignalSpy code(&c, &ReplayController::comparedCodeLoaded);
        c.requestStepCode(m_seed.llmFirstStepId);
        QVERIFY(test::settle(*worker));
        QCOMPARE(code.size(), 1);
        QCOMPARE(code.last().at(0).toLongLong(), m_seed.llmFirstStepId);
        QCOMPARE(code.last().at(1).toString(), QString("class ModelNew:\n  bad\n"));

        // A deep link to a step; an unknown run fails with a message.
        c.openRun(idOf(m_runs, "gelu-tanh"), 2);
        QVERIFY(test::settle(*worker));
        QCOMPARE(c.currentStepIndex(), 2);
        QCOMPARE(c.currentStep()->step.idx, 2);
        QCOMPARE(failed.size(), 0);
        c.openRun(424242);
        QVERIFY(test::settle(*worker));
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed.last().at(0).toString().contains("424242"));
    }

    // Last: it adds a run to the store.
    void liveRunGrows()
    {
        TrajectoryStore ts(m_store->database());
        AgentRun a;
        a.taskId = QStringLiteral("gelu-tanh");
        a.kind = QStringLiteral("llm");
        a.model = QStringLiteral("live-model");
        auto run = ts.createRun(a, "tester");
        QVERIFY(run.ok());
        QVERIFY(ts.recordStep(run.value(), test::seedStep(0, Stage::Implement, "a\n", 1, 1),
                              test::seedVerdict(VerdictStatus::RuntimeError, std::nullopt), false, "tester")
                    .ok());

        auto worker = test::openWorker(m_store->path());
        ReplayController c(*worker);
        c.reload();
        c.openRun(run.value().id);
        QVERIFY(test::settle(*worker));
        QCOMPARE(c.steps().size(), 1);
        QCOMPARE(c.currentStepIndex(), 0);
        QSignalSpy loaded(&c, &ReplayController::stepLoaded);

        // Another connection (this test's store) records the next step: the change signal brings it in.
        QVERIFY(ts.recordStep(run.value(), test::seedStep(1, Stage::Repair, "b\n", 2, 2),
                              test::seedVerdict(VerdictStatus::Passed, 1.5), true, "tester")
                    .ok());
        QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 2, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(c.currentRun()->steps, 2, 10000);
        QCOMPARE(c.currentRun()->bestSpeedup, std::optional<double>(1.5));
        QCOMPARE(c.currentStepIndex(), 0);  // the step on screen is kept
        QCOMPARE(c.currentStep()->step.idx, 0);
        QCOMPARE(loaded.size(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(c.runs().size(), 9, 10000);
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    test::SeededRuns m_seed;
    QList<RunSummary> m_runs;
};

QTEST_MAIN(TestRunsView)
#include "test_runs_view.moc"
