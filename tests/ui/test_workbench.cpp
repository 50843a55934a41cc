// Issue 18: the workbench controller and the defects that lived in MainWindow, driven through the real window and
// controller offscreen: selection after a refused task change, no task after a search, the reviewer's name, facet
// counts, the default layout.
#include "WorkbenchFixture.h"
#include "models/TaskFilterProxyModel.h"
#include "review/ReviewPanel.h"
#include "review/ReviewSession.h"
#include "store/VerdictStore.h"
#include "views/Qsci.h"
#include "views/ReviewerIdentity.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>

using namespace km;

class TestWorkbench : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;

    static QString itemText(QListWidget* list, const QString& labelStart)
    {
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->text().startsWith(labelStart + " ("))
                return list->item(i)->text();
        return {};
    }
    static void check(QListWidget* list, const QString& labelStart)
    {
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->text().startsWith(labelStart + " ("))
                list->item(i)->setCheckState(Qt::Checked);
    }
    static void answerReviewer(const QString& name)
    {
        QTimer::singleShot(0, [name] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog && dialog->objectName() == "reviewerDialog");
            dialog->setTextValue(name);
            dialog->accept();
        });
    }
    void editDescription(test::Workbench& b, const QString& text)
    {
        b.window.findChild<QTabWidget*>("taskTabs")->setCurrentWidget(b.window.findChild<QWidget*>("taskEditor"));
        b.window.findChild<QPlainTextEdit*>("descriptionEditor")->setPlainText(text);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::seededStore(m_dir);
        QVERIFY(m_store);
        m_settings = std::make_unique<QSettings>(m_dir.filePath("workbench.ini"), QSettings::IniFormat);
    }

    // Defect 1: Cancel (or Save of invalid content) in the unsaved-edits prompt leaves the table, the task view and
    // the review on the task being edited, whether the move came from a key or a click; the next review key acts
    // on that task.
    void refusedMoveKeepsTableTaskAndReviewTogether()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        QAbstractItemModelTester tester(b.table()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester source(b.controller.taskModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        ui::ReviewSession& review = b.controller.review();
        QVERIFY(b.controller.selectTask("softmax-rows"));
        QVERIFY(b.settle());
        editDescription(b, "edited, not saved");
        const QStringList stay{"softmax-rows"};

        QPointer<QTimer> first = test::answerBox("unsavedEdits", QMessageBox::Cancel);
        b.table()->setFocus();
        QTest::keyClick(b.table(), Qt::Key_Up);
        QVERIFY(test::answered(first));
        QTRY_COMPARE(b.selectedTasks(), stay);
        QCOMPARE(b.tableTask(), stay[0]);
        QCOMPARE(b.controller.currentTaskId(), stay[0]);
        QCOMPARE(review.currentTaskId(), stay[0]);

        const QModelIndex other = b.table()->model()->index(0, 0);
        QVERIFY(other.data(ui::TaskTableModel::TaskIdRole).toString() != stay[0]);
        QPointer<QTimer> answer = test::answerBox("unsavedEdits", QMessageBox::Cancel);
        QTest::mouseClick(b.table()->viewport(), Qt::LeftButton, {}, b.table()->visualRect(other).center());
        QVERIFY(test::answered(answer));  // the click asked, and Cancel answered
        QTRY_COMPARE(b.selectedTasks(), stay);
        QCOMPARE(b.tableTask(), stay[0]);
        QCOMPARE(review.currentTaskId(), stay[0]);

        // Save with invalid content refuses the move the same way.
        auto* toml = b.window.findChild<QsciScintilla*>("tomlEditor");
        toml->setText(toml->text().replace("level = 1", "level = \"one\""));
        test::answerBox("unsavedEdits", QMessageBox::Save);
        const QModelIndex another = other.siblingAtRow(1);  // not the same row again: that would be a double click
        QTest::mouseClick(b.table()->viewport(), Qt::LeftButton, {}, b.table()->visualRect(another).center());
        QTRY_COMPARE(b.selectedTasks(), stay);
        QCOMPARE(review.currentTaskId(), stay[0]);
        const QString problem = b.window.findChild<QLabel*>("editorMessage")->text();
        QVERIFY2(problem.startsWith("task.toml:3"), qPrintable(problem));

        // The review key acts on the task on screen; moving on to the next task asks too, and Cancel keeps the
        // review, the list and the task view on the edited task.
        const ReviewStatus was = m_store->task(stay[0]).value()->status;
        QPointer<QTimer> onDecision = test::answerBox("unsavedEdits", QMessageBox::Cancel);
        b.window.findChild<QAction*>("review-accept")->trigger();
        QVERIFY(test::answered(onDecision));
        QVERIFY(b.settle());
        QVERIFY(m_store->reviews(stay[0]).value().last().to == ReviewStatus::Accepted);
        QCOMPARE(review.currentTaskId(), stay[0]);
        QCOMPARE(b.controller.currentTaskId(), stay[0]);
        QTRY_COMPARE(b.selectedTasks(), stay);
        QVERIFY(m_store->review(stay[0], was, "tester", "reset", "").ok());
        test::answerBox("unsavedEdits", QMessageBox::Discard);
        b.window.close();
    }

    // Defect 2: a search that leaves no task leaves nothing to edit, and nothing a Save could write.
    void noTaskMeansEmptyDisabledEditor()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        QVERIFY(b.controller.selectTask("layernorm"));
        QVERIFY(b.settle());
        b.window.findChild<QTabWidget*>("taskTabs")->setCurrentWidget(b.window.findChild<QWidget*>("taskEditor"));
        auto* editor = b.window.findChild<QWidget*>("taskEditor");
        auto* description = b.window.findChild<QPlainTextEdit*>("descriptionEditor");
        QVERIFY(editor->isEnabled() && !description->toPlainText().isEmpty());
        const Task before = m_store->task("layernorm").value().value();

        b.window.findChild<QLineEdit*>("searchBox")->setText("zzzqqq nothing matches this");
        QTRY_COMPARE(b.table()->model()->rowCount(), 0);
        QCOMPARE(b.controller.currentTaskId(), QString());
        QVERIFY(!editor->isEnabled());
        QVERIFY(description->toPlainText().isEmpty());
        QVERIFY(b.window.findChild<QsciScintilla*>("tomlEditor")->text().isEmpty());
        QTRY_COMPARE(b.controller.review().currentTaskId(), QString());
        b.window.findChild<QPushButton*>("saveTask")->click();  // disabled: nothing happens
        QVERIFY(m_store->task("layernorm").value().value() == before);
        QVERIFY(!b.controller.saveEdit(before).ok());  // and the controller refuses it too

        b.window.findChild<QLineEdit*>("searchBox")->clear();
        QTRY_VERIFY(!b.controller.currentTaskId().isEmpty());
        QVERIFY(b.settle());  // the task is read after it became current
        QVERIFY(editor->isEnabled());
        QCOMPARE(b.window.findChild<QPlainTextEdit*>("descriptionEditor")->toPlainText(),
                 b.controller.currentTask()->description);
    }

    // A task's solutions and agent runs show in its view, and follow what another connection records.
    void aTasksWorkShowsAndFollowsTheStore()
    {
        test::Workbench b(*m_store, *m_settings);
        QVERIFY(b.controller.selectTask("silu"));
        QVERIFY(b.settle());
        auto* activity = b.window.findChild<QLabel*>("taskActivity");
        QVERIFY(activity);
        QVERIFY(b.controller.currentActivity().empty());  // the bundled tasks come without solutions
        QVERIFY(!activity->isVisibleTo(&b.window));
        Verdict v;
        v.status = VerdictStatus::Passed;
        v.summary = QStringLiteral("from another connection");
        v.harnessVersion = QStringLiteral("test");
        v.speedup = 1.25;
        QVERIFY(VerdictStore(m_store->database())
                    .recordVerified("silu", QStringLiteral("# work\n"), QStringLiteral("manual"), v,
                                    QStringLiteral("tester")));
        // No reload asked for: the store worker's change signal brings it.
        QTRY_COMPARE_WITH_TIMEOUT(b.controller.currentActivity().solutions, 1, 10000);
        QTRY_VERIFY(activity->isVisibleTo(&b.window));
        QCOMPARE(activity->text(), QStringLiteral("Work on this task: 1 solution (1 passing, best 1.25x)"));
        // The task's row says so too, in the list, with the whole line as its tooltip.
        auto* model = b.controller.taskModel();
        const QModelIndex work = model->index(model->rowOf("silu"), ui::TaskTableModel::Work);
        QTRY_COMPARE(work.data().toString(), QStringLiteral("1 sol · 1.25x"));
        QCOMPARE(work.data(Qt::ToolTipRole).toString(), QStringLiteral("1 solution (1 passing, best 1.25x)"));
        const QModelIndex other = model->index(model->rowOf("leaky-relu"), ui::TaskTableModel::Work);
        QCOMPARE(other.data().toString(), QString());
        QVERIFY(work.data(ui::TaskTableModel::SortRole).toDouble() >
                other.data(ui::TaskTableModel::SortRole).toDouble());
        b.window.findChild<QLineEdit*>("searchBox")->setText("zzzqqq nothing matches this");
        QTRY_VERIFY(!activity->isVisibleTo(&b.window));  // no task, no work line
    }

    // Defect 4: one reviewer name, asked on the first start, kept in the settings, on every decision and edit.
    void reviewerNameIsAskedStoredAndUsed()
    {
        QSettings settings(m_dir.filePath("reviewer.ini"), QSettings::IniFormat);
        qunsetenv("KMOSAIC_REVIEWER");
        QCOMPARE(ui::configuredReviewer({}, settings), QString());  // first start: ask
        answerReviewer("alice");
        QCOMPARE(ui::askReviewer(nullptr, settings, "login"), QString("alice"));
        QCOMPARE(ui::configuredReviewer({}, settings), QString("alice"));
        qputenv("KMOSAIC_REVIEWER", "carol");
        QCOMPARE(ui::configuredReviewer({}, settings), QString("carol"));
        QCOMPARE(ui::configuredReviewer("dave", settings), QString("dave"));
        qunsetenv("KMOSAIC_REVIEWER");

        test::Workbench b(*m_store, settings, ui::configuredReviewer({}, settings));
        b.window.show();
        QVERIFY(b.controller.selectTask("silu"));
        QVERIFY(b.settle());
        b.window.findChild<QAction*>("review-needs-changes")->trigger();
        QVERIFY(b.settle());
        QCOMPARE(m_store->reviews("silu").value().last().reviewer, QString("alice"));
        QVERIFY(b.controller.selectTask("silu"));
        QVERIFY(b.settle());
        editDescription(b, m_store->task("silu").value()->description + "\nA reviewer's note.\n");
        b.window.findChild<QPushButton*>("saveTask")->click();
        QVERIFY(b.settle());
        QCOMPARE(m_store->audit("task", "silu").value().last().actor, QString("alice"));
        b.window.findChild<QCheckBox*>("shown-reference")->click();
        QVERIFY(b.settle());
        QCOMPARE(m_store->audit("task", "silu").value().last().actor, QString("alice"));

        answerReviewer("bob");
        b.window.findChild<QAction*>("changeReviewer")->trigger();
        QCOMPARE(settings.value("reviewer/name").toString(), QString("bob"));
        QVERIFY(b.window.findChild<QLabel*>("reviewerLabel")->text().contains("bob"));
        QVERIFY(b.controller.selectTask("silu"));
        QVERIFY(b.settle());
        b.window.findChild<QAction*>("review-reject")->trigger();
        QVERIFY(b.settle());
        QCOMPARE(m_store->reviews("silu").value().last().reviewer, QString("bob"));
        QVERIFY(b.controller.review().undo());
        QVERIFY(b.settle());
        QCOMPARE(m_store->reviews("silu").value().last().reviewer, QString("bob"));
    }

    void cliTakesReviewerFromEnvironment()
    {
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("KMOSAIC_REVIEWER", "erin");
        cli.setProcessEnvironment(env);
        cli.start(KMOSAIC_CLI, {"--db", m_store->path(), "review", "row-sum", "--status", "in_review"});
        QVERIFY(cli.waitForFinished(20000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        QCOMPARE(m_store->reviews("row-sum").value().last().reviewer, QString("erin"));
        cli.start(KMOSAIC_CLI,
                  {"--db", m_store->path(), "review", "row-sum", "--status", "draft", "--reviewer", "fay"});
        QVERIFY(cli.waitForFinished(20000));
        QCOMPARE(m_store->reviews("row-sum").value().last().reviewer, QString("fay"));
    }

    // Issue 18: a review written by another process (the CLI) reaches the open workbench through the worker's change
    // signal, with no reload asked: the list's row, and the current task unless it has unsaved edits.
    void rowWrittenByAnotherProcessShowsWithoutReload()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        const auto statusShown = [&b](const QString& id) {
            const int row = b.controller.taskModel()->rowOf(id);
            return b.controller.taskModel()->index(row, ui::TaskTableModel::Status).data().toString();
        };
        const auto cliReview = [this](const QString& id, const QString& status) {
            QProcess cli;
            cli.start(KMOSAIC_CLI, {"--db", m_store->path(), "review", id, "--status", status, "--reviewer", "cli"});
            return cli.waitForFinished(20000) && cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0;
        };
        QVERIFY(b.controller.selectTask("gelu-tanh"));
        QVERIFY(b.settle());
        QVERIFY(statusShown("gelu-tanh") != "rejected");
        QVERIFY(cliReview("gelu-tanh", "rejected"));
        QTRY_COMPARE_WITH_TIMEOUT(statusShown("gelu-tanh"), QString("rejected"), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(
            b.controller.currentTask() && b.controller.currentTask()->status == ReviewStatus::Rejected, 20000);

        // Unsaved edits stay while the row follows the store.
        editDescription(b, "typed, not saved");
        QVERIFY(cliReview("gelu-tanh", "needs_changes"));
        QTRY_COMPARE_WITH_TIMEOUT(statusShown("gelu-tanh"), QString("needs_changes"), 20000);
        QVERIFY(b.settle());
        QCOMPARE(b.window.findChild<QPlainTextEdit*>("descriptionEditor")->toPlainText(), QString("typed, not saved"));
        QCOMPARE(b.controller.currentTaskId(), QString("gelu-tanh"));
        test::answerBox("unsavedEdits", QMessageBox::Discard);
        b.window.close();
    }

    // Defect 6: each facet's counts follow the search and the other facets' selections (not its own).
    void facetCountsFollowTheOtherFacets()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        auto* level = b.window.findChild<QListWidget*>("levelFilter");
        auto* category = b.window.findChild<QListWidget*>("categoryFilter");
        const auto count = [this](QList<int> levels, QStringList categories) {
            TaskFilter f;
            f.levels = levels;
            f.categories = categories;
            return int(m_store->matchingIds(f)->size());
        };
        check(level, "Level 2");
        QCOMPARE(itemText(category, "gemm"), QString("gemm (%1)").arg(count({2}, {"gemm"})));
        QVERIFY(count({2}, {"gemm"}) < count({}, {"gemm"}));
        QCOMPARE(itemText(level, "Level 1"), QString("Level 1 (%1)").arg(count({1}, {})));  // not its own facet
        check(category, "gemm");
        QCOMPARE(itemText(level, "Level 1"), QString("Level 1 (%1)").arg(count({1}, {"gemm"})));
        QCOMPARE(b.table()->model()->rowCount(), count({2}, {"gemm"}));
        b.window.findChild<QPushButton*>("clearFilters")->click();
    }

    // Defect 5: the task's content gets most of the height, the title more room than the id, and the review
    // buttons stay whole at the default size and down to 1024x768 and 1280x720.
    void defaultLayoutGivesTheContentRoom_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("default") << QSize(1500, 900);
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1024x768") << QSize(1024, 768);
    }
    void defaultLayoutGivesTheContentRoom()
    {
        QFETCH(QSize, size);
        QSettings fresh(m_dir.filePath(QString("layout-%1.ini").arg(size.width())), QSettings::IniFormat);
        test::Workbench b(*m_store, fresh);
        b.window.resize(size);
        b.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&b.window));
        QTRY_COMPARE(b.window.size(), size);
        auto* tabs = b.window.findChild<QTabWidget*>("taskTabs");
        QVERIFY2(tabs->currentWidget()->height() > size.height() / 2, qPrintable(QString::number(tabs->height())));
        const int ch = b.table()->fontMetrics().averageCharWidth();
        QVERIFY(b.table()->columnWidth(ui::TaskTableModel::Title) >= 30 * ch);
        QVERIFY(b.table()->columnWidth(ui::TaskTableModel::Title) > b.table()->columnWidth(ui::TaskTableModel::Id));
        auto* panel = b.window.findChild<ui::ReviewPanel*>();
        for (const char* name : {"acceptButton", "rejectButton", "needs-changesButton", "skipButton", "undoButton"}) {
            auto* button = panel->findChild<QToolButton*>(name);
            const QRect inWindow(button->mapTo(&b.window, QPoint(0, 0)), button->size());
            QVERIFY2(b.window.rect().contains(inWindow) && button->width() >= button->minimumSizeHint().width(), name);
            QVERIFY2(panel->rect().contains(QRect(button->mapTo(panel, QPoint(0, 0)), button->size())), name);
        }
        const QString shots = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR");
        if (!shots.isEmpty())
            QVERIFY(b.window.grab().save(
                QString("%1/workbench-%2x%3.png").arg(shots).arg(size.width()).arg(size.height())));
    }
};

QTEST_MAIN(TestWorkbench)
#include "test_workbench.moc"
