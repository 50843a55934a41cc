// The main window over a store seeded from the bundled tasks: list, search, selection, models under the tester.
#include "curate/BundledTasks.h"
#include "models/TaskTableModel.h"
#include "store/TaskStore.h"
#include "views/MainWindow.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QTableView>
#include <QTextBrowser>
#include <QtTest>

using namespace km;

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;

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

    void presentationMarks()
    {
        QCOMPARE(ui::presentationMarks(PresentationSet{Presentation::Description},
                                       PresentationSet{Presentation::Description, Presentation::Reference}),
                 QString("Dr-"));
    }

    void windowListsSearchesAndShowsTasks()
    {
        ui::MainWindow w(*m_store);
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
            w.resize(1400, 850);
            QVERIFY(w.grab().save(shots + "/main-window.png"));
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
