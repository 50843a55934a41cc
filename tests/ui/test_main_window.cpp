// The main window over a store seeded from the bundled tasks: list, search, selection, models under the tester.
#include "WorkbenchFixture.h"
#include "curate/BundledTasks.h"
#include "models/TaskTableModel.h"
#include "store/TaskStore.h"
#include "views/MainWindow.h"
#include "views/TransferRunner.h"

#include "curate/TaskToml.h"
#include "models/FacetFilter.h"
#include "review/ReviewPanel.h"
#include "review/ReviewSession.h"
#include "views/FilterPanel.h"
#include "views/KeyListDialog.h"
#include "views/Qsci.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QtTest>

using namespace km;

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;

    static void check(QListWidget* list, const QString& labelStart)
    {
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->text().startsWith(labelStart + " (")) {
                list->item(i)->setCheckState(Qt::Checked);
                return;
            }
        QFAIL(qPrintable("no filter entry " + labelStart));
    }

private Q_SLOTS:
    void initTestCase()
    {
        auto s = TaskStore::open(m_dir.filePath("ui.sqlite"));
        QVERIFY(s.ok());
        m_store = std::move(s).value();
        auto seeded = seedIfEmpty(*m_store, QStringLiteral(KMOSAIC_TASKS_DIR), "tester");
        QVERIFY(seeded.ok() && seeded.value().has_value());
        QVERIFY(seeded.value()->created >= 40);
        // A second seed does nothing: the store is no longer empty.
        QVERIFY(!seedIfEmpty(*m_store, QStringLiteral(KMOSAIC_TASKS_DIR), "tester").value().has_value());
        m_settings = std::make_unique<QSettings>(m_dir.filePath("workbench.ini"), QSettings::IniFormat);
    }

    void tableModelPassesTheModelTester()
    {
        ui::TaskTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(m_store->summaries().value());
        QCOMPARE(model.rowCount(), m_store->count().value());
        model.setSnapshot({});
        QCOMPARE(model.rowCount(), 0);
    }

    void facetFilterSemantics()
    {
        TaskSummary s;
        s.status = ReviewStatus::InReview;
        s.level = 2;
        s.categories = {"gemm", "fused"};
        s.shown = PresentationSet{Presentation::Description, Presentation::Spec};
        ui::FacetFilter f;
        QVERIFY(f.accepts(s));
        f.categories = {"softmax", "gemm"};  // any of
        QVERIFY(f.accepts(s));
        f.presentations = {Presentation::Description, Presentation::Reference};  // all of
        QVERIFY(!f.accepts(s));
        f.presentations = {Presentation::Spec};
        f.levels = {1, 3};
        QVERIFY(!f.accepts(s));
        f.levels = {2};
        f.statuses = {ReviewStatus::InReview};
        QVERIFY(f.accepts(s));
        const ui::FacetCounts c = ui::countFacets({s, s}, {});
        QCOMPARE(c.levels.value(2), 2);
        QCOMPARE(c.categories.value("fused"), 2);
        QCOMPARE(c.presentations.value(Presentation::Reference), 0);
    }

    void filtersCombineWithSearchAndShowCounts()
    {
        test::Workbench b(*m_store, *m_settings);
        ui::MainWindow& w = b.window;
        w.show();
        auto* table = w.findChild<QTableView*>("taskTable");
        auto* level = w.findChild<QListWidget*>("levelFilter");
        auto* category = w.findChild<QListWidget*>("categoryFilter");
        auto* shown = w.findChild<QListWidget*>("presentationFilter");
        QVERIFY(table && level && category && shown);
        QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        check(level, "Level 2");
        TaskFilter f;
        f.levels = {2};
        QCOMPARE(table->model()->rowCount(), int(m_store->summaries(f)->size()));
        // Counts next to each value are over the tasks the search matches (here: all).
        QVERIFY2(level->item(1)->text() == QString("Level 2 (%1)").arg(m_store->summaries(f)->size()),
                 qPrintable(level->item(1)->text()));

        check(category, "gemm");
        check(category, "convolution");
        check(shown, "description");
        f.categories = {"gemm", "convolution"};
        f.presentations = {Presentation::Description};
        const QStringList expected = m_store->matchingIds(f).value();
        QVERIFY(!expected.isEmpty());
        QStringList visible = b.controller.visibleTaskIds();
        visible.sort();
        QCOMPARE(visible, expected);

        w.findChild<QLineEdit*>("searchBox")->setText("layernorm");
        f.text = "layernorm";
        const QStringList withSearch = m_store->matchingIds(f).value();
        QTRY_COMPARE(table->model()->rowCount(), int(withSearch.size()));

        w.findChild<QPushButton*>("clearFilters")->click();
        TaskFilter onlyText;
        onlyText.text = "layernorm";
        QCOMPARE(table->model()->rowCount(), int(m_store->matchingIds(onlyText)->size()));
    }

    void reviewFollowsTheFilteredList()
    {
        test::Workbench b(*m_store, *m_settings);
        ui::MainWindow& w = b.window;
        w.show();
        check(w.findChild<QListWidget*>("levelFilter"), "Level 3");
        auto* table = w.findChild<QTableView*>("taskTable");
        QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QStringList visible = b.controller.visibleTaskIds();
        QVERIFY(visible.size() >= 3);
        QStringList pending;  // the level-3 tasks that still need review, in list order
        for (const QString& id : visible)
            if (ui::ReviewSession::needsReview(m_store->task(id).value()->status))
                pending.append(id);
        QVERIFY(pending.size() >= 2);
        b.controller.selectTask(pending[0]);
        ui::ReviewSession& review = w.findChild<ui::ReviewPanel*>()->session();
        QTRY_COMPARE(review.queue(), visible);  // the queue is the filtered list, in its order
        QCOMPARE(review.currentTaskId(), pending[0]);

        const ReviewStatus was = m_store->task(pending[0]).value()->status;
        QVERIFY(review.decide(ReviewStatus::Accepted));
        QVERIFY(b.settle());
        QCOMPARE(toString(m_store->task(pending[0]).value()->status), toString(ReviewStatus::Accepted));
        // The list shows the new status and moves to the next task of the filter that needs review.
        QTRY_COMPARE(table->currentIndex().data(ui::TaskTableModel::TaskIdRole).toString(), pending[1]);
        const QModelIndexList hits = table->model()->match(table->model()->index(0, ui::TaskTableModel::Id),
                                                           Qt::DisplayRole, pending[0], 1, Qt::MatchExactly);
        QCOMPARE(hits.size(), 1);
        QCOMPARE(hits[0].siblingAtColumn(ui::TaskTableModel::Status).data().toString(), QString("accepted"));
        QVERIFY(review.undo());
        QVERIFY(b.settle());
        QCOMPARE(toString(m_store->task(pending[0]).value()->status), toString(was));
    }

    void referenceIsSearchable()
    {
        test::Workbench b(*m_store, *m_settings);
        ui::MainWindow& w = b.window;
        w.show();
        b.controller.selectTask("softmax-rows");
        QVERIFY(b.settle());
        auto* tabs = w.findChild<QTabWidget*>("taskTabs");
        auto* reference = w.findChild<QsciScintilla*>("referenceEditor");
        auto* find = w.findChild<QLineEdit*>("referenceFind");
        tabs->setCurrentWidget(reference->parentWidget());
        QVERIFY(reference->isReadOnly());
        QCOMPARE(reference->text(), m_store->task("softmax-rows").value()->reference);
        QTest::keyClicks(find, "get_inputs");
        QCOMPARE(reference->selectedText(), QString("get_inputs"));
        int line = -1, index = -1;
        reference->getCursorPosition(&line, &index);
        QVERIFY(reference->text(line).startsWith("def get_inputs"));
        find->clear();
        QTest::keyClicks(find, "no such text anywhere");
        QVERIFY(find->styleSheet().contains("background"));
    }

    void layoutSurvivesRestart()
    {
        const QString ini = m_dir.filePath("layout.ini");
        {
            QSettings settings(ini, QSettings::IniFormat);
            test::Workbench b(*m_store, settings);
            ui::MainWindow& w = b.window;
            w.show();
            auto* filters = w.findChild<QDockWidget*>("filtersDock");
            QVERIFY(filters && filters->isVisible());
            filters->hide();
            w.addDockWidget(Qt::LeftDockWidgetArea, w.findChild<QDockWidget*>("taskDock"));
            QCOMPARE(w.dockWidgetArea(w.findChild<QDockWidget*>("taskDock")), Qt::LeftDockWidgetArea);
            w.close();  // saves the layout
        }
        QSettings settings(ini, QSettings::IniFormat);
        test::Workbench b2(*m_store, settings);
        ui::MainWindow& again = b2.window;
        again.show();
        QVERIFY(!again.findChild<QDockWidget*>("filtersDock")->isVisible());
        QCOMPARE(again.dockWidgetArea(again.findChild<QDockWidget*>("taskDock")), Qt::LeftDockWidgetArea);
    }

    void importShowsProgressAndReportAndLosesNothing()
    {
        test::Workbench b(*m_store, *m_settings);
        ui::MainWindow& w = b.window;
        w.show();
        const QList<Task> before = m_store->tasks().value();
        w.transfers()->startImport(QStringLiteral(KMOSAIC_TEST_DATA) + "/malformed-tasks", TaskFormat::Auto);
        QDialog* report = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((report = w.findChild<QDialog*>("importReport")) != nullptr, 20000);
        auto* summary = report->findChild<QLabel*>("importSummary");
        QVERIFY(summary->text().contains("1 new, 0 updated, 0 unchanged, 4 skipped"));
        auto* issues = report->findChild<QTableWidget*>("importIssues");
        bool located = false;  // the wrong-type task.toml is reported with its line
        for (int r = 0; r < issues->rowCount(); ++r)
            located = located || (issues->item(r, 1)->text().endsWith("wrong-type/task.toml") &&
                                  issues->item(r, 2)->text() == "4" && issues->item(r, 0)->text() == "error");
        QVERIFY(located);
        for (const Task& t : before)
            QVERIFY(m_store->task(t.id).value().value() == t);
        QTRY_COMPARE(w.findChild<QTableView*>("taskTable")->model()->rowCount(), int(before.size()) + 1);
        report->close();

        QTemporaryDir out;
        w.findChild<QLineEdit*>("searchBox")->setText("softmax");
        QTRY_VERIFY(b.controller.visibleTaskIds().size() < int(before.size()));
        const QStringList visible = b.controller.visibleTaskIds();
        w.transfers()->startExport(out.path(), TaskFormat::Folder);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage().startsWith("Exported"), 20000);
        QCOMPARE(QDir(out.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), visible.size());
        for (const QString& id : visible)
            QVERIFY(QFile::exists(out.path() + "/" + id + "/task.toml"));
        QVERIFY(m_store->review("good-one", ReviewStatus::Rejected, "tester", "cleanup", "").ok());
    }

    void editsAreSavedWithAuditAndNeverLostSilently()
    {
        test::Workbench b(*m_store, *m_settings);
        ui::MainWindow& w = b.window;
        w.show();
        b.controller.selectTask("softmax-rows");
        QVERIFY(b.settle());
        auto* tabs = w.findChild<QTabWidget*>("taskTabs");
        tabs->setCurrentWidget(w.findChild<QWidget*>("taskEditor"));  // the editor loads when first shown
        auto* description = w.findChild<QPlainTextEdit*>("descriptionEditor");
        auto* toml = w.findChild<QsciScintilla*>("tomlEditor");
        auto* message = w.findChild<QLabel*>("editorMessage");
        QVERIFY(description && toml && message);
        const Task before = m_store->task("softmax-rows").value().value();

        // A malformed edit is refused with its line; the store keeps the task as it was.
        toml->setText(toml->text().replace("level = 1", "level = \"one\""));
        w.findChild<QPushButton*>("saveTask")->click();
        QVERIFY2(message->text().startsWith("task.toml:3: 'level'"), qPrintable(message->text()));
        QVERIFY(m_store->task("softmax-rows").value().value() == before);

        // Unsaved edits: moving to another task asks; Cancel stays, Discard drops the edits.
        const auto answer = [](QMessageBox::StandardButton button) {
            QTimer::singleShot(0, [button] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box && box->objectName() == "unsavedEdits");
                box->button(button)->click();
            });
        };
        answer(QMessageBox::Cancel);
        b.controller.selectTask("layernorm");
        QCOMPARE(w.findChild<QTableView*>("taskTable")->currentIndex().data(ui::TaskTableModel::TaskIdRole).toString(),
                 QString("softmax-rows"));
        QVERIFY(toml->text().contains("level = \"one\""));

        // A valid edit of the description is saved with an audit entry naming the field.
        toml->setText(QString::fromUtf8(writeTaskToml(before)));
        description->setPlainText(before.description + "\nEdited by the test.\n");
        w.findChild<QPushButton*>("saveTask")->click();
        QVERIFY(b.settle());
        QCOMPARE(message->text(), QString("Saved"));
        const Task after = m_store->task("softmax-rows").value().value();
        QVERIFY(after.description.endsWith("Edited by the test.\n"));
        const AuditEntry last = m_store->audit("task", "softmax-rows").value().last();
        QCOMPARE(last.action, QString("updated"));
        QCOMPARE(last.detail.value("fields").toStringList(), QStringList{"description"});
        tabs->setCurrentWidget(w.findChild<QWidget*>("historyTable"));
        QCOMPARE(w.findChild<QTableWidget*>("historyTable")->item(0, 2)->text(), QString("updated"));
        tabs->setCurrentWidget(w.findChild<QWidget*>("taskEditor"));

        description->setPlainText("throw this away");
        answer(QMessageBox::Discard);
        b.controller.selectTask("layernorm");
        QTRY_COMPARE(
            w.findChild<QTableView*>("taskTable")->currentIndex().data(ui::TaskTableModel::TaskIdRole).toString(),
            QString("layernorm"));
        QVERIFY(b.settle());
        QCOMPARE(m_store->task("softmax-rows").value()->description, after.description);

        // What the model is shown is toggled in place and stored with an audit entry.
        auto* spec = w.findChild<QCheckBox*>("shown-spec");
        const bool had = m_store->task("layernorm").value()->shown.has(Presentation::Spec);
        QVERIFY(spec->isEnabled());
        spec->click();
        QVERIFY(b.settle());
        QCOMPARE(m_store->task("layernorm").value()->shown.has(Presentation::Spec), !had);
        QCOMPARE(m_store->audit("task", "layernorm").value().last().detail.value("fields").toStringList(),
                 QStringList{"shown"});
    }

    void presentationMarks()
    {
        QCOMPARE(ui::presentationMarks(PresentationSet{Presentation::Description},
                                       PresentationSet{Presentation::Description, Presentation::Reference}),
                 QString("Dr-"));
    }

    // "?" lists every key of the menus (review keys too, as remapped), searchable.
    void questionMarkListsEveryKey()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        QVERIFY(QTest::qWaitForWindowActive(&b.window));
        const QList<ui::KeyRow> rows = ui::keyRows(b.window.menuBar());
        auto has = [&rows](const QString& menu, const QString& action, const QString& keys) {
            return std::any_of(rows.begin(), rows.end(), [&](const ui::KeyRow& r) {
                return r.menu == menu && r.action == action && r.keys == keys;
            });
        };
        QVERIFY(has("File", "Reload", QKeySequence(QKeySequence::Refresh).toString(QKeySequence::NativeText)));
        auto* accept = b.window.findChild<QAction*>("review-accept");
        QVERIFY(accept);
        QVERIFY(has("Review", accept->text().remove('&'), accept->shortcut().toString(QKeySequence::NativeText)));
        QVERIFY(std::none_of(rows.begin(), rows.end(), [](const ui::KeyRow& r) { return r.keys.isEmpty(); }));

        b.window.findChild<QTableView*>("taskTable")->setFocus();
        QTest::keyClick(b.window.focusWidget(), Qt::Key_Question);
        QDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = b.window.findChild<QDialog*>("keyListDialog")) && dialog->isVisible());
        auto* list = dialog->findChild<QTableWidget*>("keyList");
        QCOMPARE(list->rowCount(), int(rows.size()));
        dialog->findChild<QLineEdit*>("keyFilter")->setText("reload");
        int shown = 0;
        for (int r = 0; r < list->rowCount(); ++r)
            shown += list->isRowHidden(r) ? 0 : 1;
        QVERIFY(shown >= 1 && shown < list->rowCount());
        dialog->reject();
    }

    void windowListsSearchesAndShowsTasks()
    {
        test::Workbench b(*m_store, *m_settings);
        ui::MainWindow& w = b.window;
        w.show();
        auto* table = w.findChild<QTableView*>("taskTable");
        auto* search = w.findChild<QLineEdit*>("searchBox");
        QVERIFY(table && search);
        QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(table->model()->rowCount(), m_store->count().value());

        search->setText("softmax");
        TaskFilter f;
        f.text = "softmax";
        const int expected = int(m_store->summaries(f).value().size());
        QVERIFY(expected > 0 && expected < m_store->count().value());
        QTRY_COMPARE(table->model()->rowCount(), expected);
        QVERIFY(b.settle());

        // The current row's task is shown: its description rendered from Markdown.
        const QString id = table->currentIndex().data(ui::TaskTableModel::TaskIdRole).toString();
        QVERIFY(!id.isEmpty());
        const Task t = m_store->task(id).value().value();
        auto* description = w.findChild<QTextBrowser*>("descriptionView");
        QVERIFY(description);
        const QString shown = description->toPlainText();
        if (t.description.isEmpty()) {
            QVERIFY(shown.contains("No description"));
        } else {
            const QString firstLine = t.description.section('\n', 0, 0);
            QVERIFY2(!shown.contains("# ") && shown.contains(QString(firstLine).remove('#').remove('`').trimmed()),
                     qPrintable(shown.left(200)));  // Markdown rendered, heading marks gone
        }

        search->clear();
        QTRY_COMPARE(table->model()->rowCount(), m_store->count().value());

        const QString shots = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            w.resize(1500, 900);
            b.controller.selectTask("l2-gemm-residual-layernorm");
            QVERIFY(b.settle());
            QVERIFY(w.grab().save(shots + "/main-window.png"));
            auto* tabs = w.findChild<QTabWidget*>("taskTabs");
            tabs->setCurrentWidget(w.findChild<QWidget*>("taskEditor"));
            QVERIFY(w.grab().save(shots + "/task-editor.png"));
            tabs->setCurrentIndex(0);
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
