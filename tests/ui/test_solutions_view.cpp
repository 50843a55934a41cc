// The solution review, offscreen, on a real store with the shipped H200 demonstrations and verdicts recorded here
// (on the CPU, by an old harness, with an error finding): the queue's models under QAbstractItemModelTester with
// filters and counts; accepting a PASSED-on-cuda solution by keyboard; accepting a failing one opens the override
// dialog (each gate rule named), which needs a written reason and records the override; reject with a reason key, undo
// by appending; the History tab; Fix & Accept stores a linked solution; the task filter.
#include "../common/SolutionFixture.h"
#include "StoreWorkerWait.h"
#include "services/SolutionReviewService.h"
#include "solutions/OverrideDialog.h"
#include "solutions/SolutionDetailPane.h"
#include "solutions/SolutionReasons.h"
#include "solutions/SolutionTableModel.h"
#include "solutions/SolutionsController.h"
#include "solutions/SolutionsView.h"
#include "views/Qsci.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

using namespace km;
using namespace km::ui;

class TestSolutionsView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_store = test::solutionStore(*m_dir);
        QVERIFY(m_store);
        m_cpu = test::recordSolution(*m_store, QStringLiteral("cpu code"), test::cpuPassedVerdict());
        m_old = test::recordSolution(*m_store, QStringLiteral("old code"), test::oldHarnessVerdict());
        m_hack = test::recordSolution(*m_store, QStringLiteral("hack code"), test::errorFindingVerdict());
        m_good = test::recordSolution(*m_store, QStringLiteral("good code"), test::gpuPassedVerdict(4.0), "agent");
        QVERIFY(m_cpu && m_old && m_hack && m_good);
        m_settings = std::make_unique<QSettings>(m_dir->filePath("s.ini"), QSettings::IniFormat);
        m_worker = test::openWorker(m_store->path());
        m_controller = std::make_unique<SolutionsController>(*m_worker, nullptr, QStringLiteral("ana"));
        m_view = std::make_unique<SolutionsView>(*m_controller, *m_settings);
        m_modelTester = std::make_unique<QAbstractItemModelTester>(
            m_view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_proxyTester = std::make_unique<QAbstractItemModelTester>(
            m_view->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_controller->reload();
        QVERIFY(test::settle(*m_worker));
        m_view->resize(1200, 800);
        m_view->show();
        m_view->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_view.get()));
        table()->setFocus();
    }

    void cleanup()
    {
        m_proxyTester.reset();
        m_modelTester.reset();
        m_view.reset();
        m_controller.reset();
        m_worker.reset();
        m_store.reset();
        m_settings.reset();
        m_dir.reset();
    }

    // A wrong result's timing is no speedup: its cell is a dash, the tooltip says what was timed and why.
    void aWrongResultShowsNoSpeedup()
    {
        Verdict wrong = test::gpuPassedVerdict(179.09);
        wrong.status = VerdictStatus::IncorrectNumerical;
        const qint64 id = test::recordSolution(*m_store, QStringLiteral("stale memory"), wrong);
        QVERIFY(id);
        m_controller->reload();
        QVERIFY(test::settle(*m_worker));
        const QModelIndex speedup = m_view->model()->index(m_view->model()->rowOf(id), SolutionTableModel::Speedup);
        QCOMPARE(speedup.data().toString(), QStringLiteral("–"));
        QVERIFY2(speedup.data(Qt::ToolTipRole).toString().contains("179.09x, but the verdict is INCORRECT_NUMERICAL"),
                 qPrintable(speedup.data(Qt::ToolTipRole).toString()));
        const QModelIndex good = m_view->model()->index(m_view->model()->rowOf(m_good), SolutionTableModel::Speedup);
        QCOMPARE(good.data().toString(), QStringLiteral("4.00x"));
        QVERIFY(good.data(Qt::ToolTipRole).isNull());
    }

    void theQueueListsFiltersAndCounts()
    {
        const int all = m_view->model()->rowCount();
        QVERIFY(all >= 10);  // the demonstrations' solutions and the four recorded here
        QCOMPARE(label("solutionCount")->text(), QStringLiteral("%1 of %1 solutions").arg(all));
        const int good = m_view->model()->rowOf(m_good);
        QVERIFY(good >= 0);
        const auto cell = [&](int row, int col) {
            return m_view->model()->index(row, col).data().toString();
        };
        QCOMPARE(cell(good, SolutionTableModel::Gate), QStringLiteral("ok"));
        QCOMPARE(cell(good, SolutionTableModel::Gpu), QStringLiteral("NVIDIA H200"));
        QCOMPARE(cell(good, SolutionTableModel::Speedup), QStringLiteral("4.00x"));
        QCOMPARE(cell(m_view->model()->rowOf(m_cpu), SolutionTableModel::Gate), QStringLiteral("gpu"));
        QCOMPARE(cell(m_view->model()->rowOf(m_hack), SolutionTableModel::Gate), QStringLiteral("findings"));
        QCOMPARE(cell(m_view->model()->rowOf(m_old), SolutionTableModel::Gate), QStringLiteral("harness"));

        // A refresh with the same ids updates in place: the selection stays.
        m_view->selectSolution(m_old);
        QVERIFY(test::settle(*m_worker));
        m_view->model()->setSolutions(m_controller->solutions());
        QCOMPARE(table()->currentIndex().data(SolutionTableModel::SolutionIdRole).toLongLong(), m_old);

        auto* verdict = m_view->findChild<QComboBox*>(QStringLiteral("solutionVerdictFilter"));
        verdict->setCurrentIndex(verdict->findData(QStringLiteral("COMPILE_ERROR")));
        const int compile = m_view->proxy()->rowCount();
        QVERIFY(compile >= 1 && compile < all);
        for (int r = 0; r < compile; ++r)
            QCOMPARE(m_view->proxy()->index(r, SolutionTableModel::Verdict).data().toString(),
                     QStringLiteral("COMPILE_ERROR"));
        QCOMPARE(label("solutionCount")->text(), QStringLiteral("%1 of %2 solutions").arg(compile).arg(all));
        verdict->setCurrentIndex(0);
        auto* origin = m_view->findChild<QComboBox*>(QStringLiteral("solutionOriginFilter"));
        origin->setCurrentIndex(origin->findData(QStringLiteral("manual")));
        QCOMPARE(m_view->proxy()->rowCount(), 3);  // cpu, old, hack
        m_view->findChild<QLineEdit*>(QStringLiteral("solutionSearch"))->setText(QString::number(m_hack));
        QCOMPARE(m_view->proxy()->rowCount(), 1);
        QCOMPARE(m_view->proxy()->index(0, 0).data(SolutionTableModel::SolutionIdRole).toLongLong(), m_hack);

        // Sorting by speedup puts a missing one last.
        m_view->findChild<QLineEdit*>(QStringLiteral("solutionSearch"))->clear();
        origin->setCurrentIndex(0);
        m_view->proxy()->sort(SolutionTableModel::Speedup, Qt::AscendingOrder);
        const int last = m_view->proxy()->rowCount() - 1;
        QCOMPARE(m_view->proxy()->index(last, SolutionTableModel::Speedup).data().toString(), QStringLiteral("–"));

        m_controller->setTaskFilter(QStringLiteral("leaky-relu"));
        QVERIFY(test::settle(*m_worker));
        QVERIFY(m_view->proxy()->rowCount() >= 4);
        for (int r = 0; r < m_view->proxy()->rowCount(); ++r)
            QCOMPARE(m_view->proxy()->index(r, SolutionTableModel::Task).data().toString(),
                     QStringLiteral("leaky-relu"));
    }

    void aPassingSolutionIsAcceptedByKeyboard()
    {
        m_view->selectSolution(m_good);
        QVERIFY(test::settle(*m_worker));
        QVERIFY(label("solutionGate")->text().startsWith(QLatin1String("Gate: met")));
        table()->setFocus();
        QTest::keyClick(table(), Qt::Key_3);  // reason S3
        QTest::keyClick(table(), Qt::Key_A);
        QVERIFY(test::settle(*m_worker));
        QVERIFY(!m_view->overrideDialog());
        QCOMPARE(toString(status(m_good)), toString(ReviewStatus::Accepted));
        const auto history = service().history(m_good).value();
        QCOMPARE(history.size(), 1);
        QVERIFY(!history.first().isOverride());
        QCOMPARE(history.first().reviewer, QStringLiteral("ana"));
        QCOMPARE(history.first().reason, QStringLiteral("S3"));
        QVERIFY(m_controller->currentId() != m_good);  // moved on to the next in the queue
    }

    void acceptingAFailingOneNeedsAWrittenOverride()
    {
        m_view->selectSolution(m_cpu);
        QVERIFY(test::settle(*m_worker));
        QVERIFY(label("solutionGate")->text().contains(QLatin1String("not measured on a GPU")) ||
                label("solutionGate")->text().contains(QLatin1String("not on a GPU")));
        QTest::keyClick(table(), Qt::Key_A);
        QTRY_VERIFY(m_view->overrideDialog());
        OverrideDialog* dialog = m_view->overrideDialog();
        QVERIFY(dialog->findChild<QLabel*>(QStringLiteral("overrideRules"))->text().contains(QLatin1String("gpu")));
        QVERIFY(!dialog->okButton()->isEnabled());
        QCOMPARE(toString(status(m_cpu)), toString(ReviewStatus::Draft));  // nothing recorded while it asks
        QTest::keyClicks(dialog->reasonEdit(), QStringLiteral("exact on the CPU; GPU box down"));
        QVERIFY(dialog->okButton()->isEnabled());
        dialog->okButton()->click();
        QVERIFY(test::settle(*m_worker));
        QCOMPARE(toString(status(m_cpu)), toString(ReviewStatus::Accepted));
        const auto history = service().history(m_cpu).value();
        QCOMPARE(history.size(), 1);
        QCOMPARE(history.first().overriddenRules, QStringList{"gpu"});
        QCOMPARE(history.first().comment, QStringLiteral("exact on the CPU; GPU box down"));
        m_view->selectSolution(m_cpu);  // the view moved on to the next in the queue
        QVERIFY(test::settle(*m_worker));
        QListWidget* lines = m_view->detail()->historyList();
        QVERIFY2(lines->item(lines->count() - 1)->text().contains(QStringLiteral("draft → accepted  [override: gpu]")),
                 qPrintable(lines->item(lines->count() - 1)->text()));

        // A cancelled dialog records nothing.
        m_view->selectSolution(m_hack);
        QVERIFY(test::settle(*m_worker));
        m_view->activateWindow();  // back from the dialog
        QVERIFY(QTest::qWaitForWindowActive(m_view.get()));
        table()->setFocus();
        QTest::keyClick(table(), Qt::Key_A);
        QTRY_VERIFY(m_view->overrideDialog());
        m_view->overrideDialog()->reject();
        QVERIFY(test::settle(*m_worker));
        QCOMPARE(toString(status(m_hack)), toString(ReviewStatus::Draft));
    }

    // Every rule of the gate from the view: accepting opens the dialog naming it; cancelled, nothing is written.
    void everyUnmetRuleOpensTheOverrideDialog()
    {
        Verdict wrong = test::gpuPassedVerdict();
        wrong.status = VerdictStatus::RuntimeError;
        const qint64 failing = test::recordSolution(*m_store, QStringLiteral("failing code"), wrong);
        const qint64 bare = VerdictStore(m_store->database())
                                .addSolution(QStringLiteral("leaky-relu"), QStringLiteral("bare code"),
                                             QStringLiteral("manual"), QStringLiteral("t"))
                                ->id;
        m_controller->reload();
        QVERIFY(test::settle(*m_worker));
        const QList<std::pair<qint64, QString>> cases{
            {m_cpu, "gpu"}, {m_old, "harness"}, {m_hack, "findings"}, {failing, "passed"}, {bare, "verdict"}};
        for (const auto& [id, rule] : cases) {
            m_view->selectSolution(id);
            QVERIFY(test::settle(*m_worker));
            m_view->activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(m_view.get()));
            table()->setFocus();
            QTest::keyClick(table(), Qt::Key_A);
            QTRY_VERIFY(m_view->overrideDialog());
            const QString rules = m_view->overrideDialog()->findChild<QLabel*>(QStringLiteral("overrideRules"))->text();
            QVERIFY2(rules.contains(QStringLiteral("<b>%1</b>").arg(rule)), qPrintable(rules));
            m_view->overrideDialog()->reject();
            QTRY_VERIFY(!m_view->overrideDialog());
            QVERIFY(test::settle(*m_worker));
            QCOMPARE(toString(status(id)), toString(ReviewStatus::Draft));
            QVERIFY(service().history(id)->isEmpty());
        }
    }

    void rejectThenUndoAppendsAndTheHistoryShowsBoth()
    {
        m_view->selectSolution(m_hack);
        QVERIFY(test::settle(*m_worker));
        QTest::keyClick(table(), Qt::Key_2);  // S2 hack suspected
        QTest::keyClick(table(), Qt::Key_E);  // comment
        QVERIFY(QApplication::focusWidget() == m_view->findChild<QPlainTextEdit*>(QStringLiteral("solutionComment")));
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("caches by pointer"));  // 'a','c' type text
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QCOMPARE(QApplication::focusWidget(), table());
        QTest::keyClick(table(), Qt::Key_X);
        QVERIFY(test::settle(*m_worker));
        QCOMPARE(toString(status(m_hack)), toString(ReviewStatus::Rejected));
        auto history = service().history(m_hack).value();
        QCOMPARE(history.size(), 1);
        QCOMPARE(history.first().reason, QStringLiteral("S2"));
        QCOMPARE(history.first().comment, QStringLiteral("caches by pointer"));

        table()->setFocus();
        QTest::keyClick(table(), Qt::Key_Backspace);
        QVERIFY(test::settle(*m_worker));
        QCOMPARE(toString(status(m_hack)), toString(ReviewStatus::Draft));
        history = service().history(m_hack).value();
        QCOMPARE(history.size(), 2);  // undo appends
        QCOMPARE(history.last().reason, QStringLiteral("undo"));
        QCOMPARE(toString(history.last().to), toString(ReviewStatus::Draft));
        QCOMPARE(m_controller->currentId(), m_hack);  // undo goes back to the solution

        // History: the audit entries, oldest first: created, verified, the decision, its undo.
        QListWidget* list = m_view->detail()->historyList();
        QStringList lines;
        for (int i = 0; i < list->count(); ++i)
            lines << list->item(i)->text();
        QCOMPARE(lines.size(), 4);
        QVERIFY2(lines[0].contains(QLatin1String("tester: created (manual)")), qPrintable(lines[0]));
        QVERIFY2(lines[1].contains(QLatin1String("verified: PASSED")), qPrintable(lines[1]));
        QVERIFY2(lines[2].contains(QStringLiteral("ana: draft → rejected  (S2)  caches by pointer")),
                 qPrintable(lines[2]));
        QVERIFY2(lines[3].contains(QStringLiteral("ana: rejected → draft  (undo)")), qPrintable(lines[3]));
        QTest::keyClick(table(), Qt::Key_Backspace);  // nothing left of this session
        QVERIFY(test::settle(*m_worker));
        QCOMPARE(service().history(m_hack)->size(), 2);
        QVERIFY(label("solutionMessage")->text().contains(QLatin1String("nothing to undo")));
    }

    void theVerdictsTabListsEveryVerdict()
    {
        QVERIFY(VerdictStore(m_store->database()).addVerdict(m_old, test::gpuPassedVerdict(), "t"));  // re-verified
        m_view->selectSolution(m_old);
        QVERIFY(test::settle(*m_worker));
        QTableWidget* verdicts = m_view->detail()->verdictTable();
        QCOMPARE(verdicts->rowCount(), 2);
        QCOMPARE(verdicts->item(0, 3)->text(), harnessVersion());  // newest first
        QCOMPARE(verdicts->item(1, 3)->text(), QStringLiteral("0.9.0"));
        QVERIFY(label("solutionGate")->text().startsWith(QLatin1String("Gate: met")));
        QCOMPARE(m_view->detail()->editor()->text(), QStringLiteral("old code"));
    }

    void fixAndAcceptStoresALinkedSolution()
    {
        m_view->selectSolution(m_cpu);
        QVERIFY(test::settle(*m_worker));
        m_view->fixButton()->click();
        QVERIFY(!m_view->detail()->editor()->isReadOnly());
        QVERIFY(m_view->saveFixButton()->isEnabled());
        m_view->detail()->editor()->setText(QStringLiteral("fixed code"));
        // Typing review keys in the editor writes text, decides nothing.
        m_view->detail()->editor()->setFocus();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_X);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_A);
        QVERIFY(test::settle(*m_worker));
        QCOMPARE(toString(status(m_cpu)), toString(ReviewStatus::Draft));
        QVERIFY2(m_view->detail()->editor()->text().contains(QLatin1String("xa")),
                 qPrintable(m_view->detail()->editor()->text()));
        m_view->saveFixButton()->click();
        QVERIFY(test::settle(*m_worker));
        const qint64 fixed = m_controller->currentId();
        QVERIFY(fixed != m_cpu && fixed > 0);
        auto detail = service().detail(fixed);
        QVERIFY(detail);
        QCOMPARE(detail->parentId, m_cpu);
        QCOMPARE(detail->solution.code, m_view->detail()->editor()->text());
        QVERIFY(detail->solution.code.contains(QLatin1String("fixed code")));
        QCOMPARE(detail->solution.origin, QStringLiteral("manual"));
        QVERIFY(m_view->detail()->editor()->isReadOnly());
        QTRY_VERIFY(m_view->detail()->historyList()->count() == 2);
        QVERIFY(m_view->detail()->historyList()->item(1)->text().contains(
            QStringLiteral("fixed from solution %1").arg(m_cpu)));
        // No verification service here: the re-verify says so instead of hanging.
        QVERIFY(label("solutionMessage")->text().contains(QLatin1String("verification is not available")));
        QTRY_VERIFY(m_view->model()->rowOf(fixed) >= 0);
        QVERIFY(m_view->model()
                    ->index(m_view->model()->rowOf(fixed), SolutionTableModel::Origin)
                    .data()
                    .toString()
                    .contains(QStringLiteral("fix of %1").arg(m_cpu)));
    }

    void reasonCodesAreTheirOwnConfigurableList()
    {
        QCOMPARE(m_view->reasons().size(), 6);
        QCOMPARE(m_view->reasons().at(1).label, QStringLiteral("hack suspected"));
        QCOMPARE(m_view->findChild<QListWidget*>(QStringLiteral("solutionReasons"))->count(), 6);
        QSettings custom(m_dir->filePath("custom.ini"), QSettings::IniFormat);
        saveSolutionReasonCodes(custom, {{QStringLiteral("Q1"), QStringLiteral("too clever")}});
        SolutionsView other(*m_controller, custom);
        QCOMPARE(other.reasons().size(), 1);
        QCOMPARE(other.reasons().first().code, QStringLiteral("Q1"));
        QVERIFY(other.action(ReviewAction::Reason1));
        QVERIFY(!other.action(ReviewAction::Reason2));            // no key for a code that is not there
        QCOMPARE(loadReasonCodes(custom), defaultReasonCodes());  // the task review's list is untouched
    }

private:
    QTableView* table() const { return m_view->findChild<QTableView*>(QStringLiteral("solutionTable")); }
    QLabel* label(const char* name) const { return m_view->findChild<QLabel*>(QString::fromLatin1(name)); }
    SolutionReviewService service() const { return SolutionReviewService(m_store->database()); }
    ReviewStatus status(qint64 id) const { return service().status(id).value(); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<StoreWorker> m_worker;
    std::unique_ptr<SolutionsController> m_controller;
    std::unique_ptr<SolutionsView> m_view;
    std::unique_ptr<QAbstractItemModelTester> m_modelTester;
    std::unique_ptr<QAbstractItemModelTester> m_proxyTester;
    qint64 m_cpu = 0, m_old = 0, m_hack = 0, m_good = 0;
};

QTEST_MAIN(TestSolutionsView)
#include "test_solutions_view.moc"
