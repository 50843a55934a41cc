// Issue 18, defect 3: re-importing a task folder asks before it overwrites a task edited in the workbench since its
// last import, and the report names every task it changed (and those it kept).
#include "WorkbenchFixture.h"
#include "views/TransferRunner.h"

#include <QDialog>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>

using namespace km;

class TestWorkbenchImport : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<QSettings> m_settings;
    QString m_source;  // a copy of two bundled task folders

    static bool copyFolder(const QString& from, const QString& to)
    {
        QDir().mkpath(to);
        for (const QString& f : QDir(from).entryList(QDir::Files))
            if (!QFile::copy(from + "/" + f, to + "/" + f))
                return false;
        return true;
    }
    static void appendTo(const QString& file, const QByteArray& text)
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::Append));
        f.write(text);
    }
    // Runs an import; `answer` is the button to click in the overwrite question, empty when none may come.
    QString importAndAnswer(test::Workbench& b, const QString& answer, QStringList* asked = nullptr)
    {
        QSignalSpy done(b.window.transfers(), &ui::TransferRunner::importDone);
        b.window.transfers()->startImport(m_source, TaskFormat::Folder);
        if (!answer.isEmpty()) {
            QMessageBox* box = nullptr;
            for (QDeadlineTimer deadline(20000); !box && !deadline.hasExpired(); QTest::qWait(20))
                box = b.window.findChild<QMessageBox*>("overwriteEdits");
            if (!box)
                return "no question";
            if (asked)
                *asked = box->detailedText().split('\n');
            box->setObjectName("answered");  // deleted later; the next search must not find it
            box->findChild<QPushButton*>(answer)->click();
            if (answer == "cancelImport")
                return {};
        }
        if (!done.wait(20000))
            return "no import report";
        QDialog* report = b.window.findChild<QDialog*>("importReport");
        const QString text = report->findChild<QLabel*>("importSummary")->text() + "\n" +
                             report->findChild<QPlainTextEdit*>("importChanges")->toPlainText();
        report->setObjectName("seen");
        report->close();
        return text;
    }
    void edit(test::Workbench& b, const QString& id, const QString& line)
    {
        QVERIFY(b.controller.selectTask(id));
        QVERIFY(b.settle());
        b.window.findChild<QTabWidget*>("taskTabs")->setCurrentWidget(b.window.findChild<QWidget*>("taskEditor"));
        auto* description = b.window.findChild<QPlainTextEdit*>("descriptionEditor");
        description->setPlainText(description->toPlainText() + line);
        b.window.findChild<QPushButton*>("saveTask")->click();
        QVERIFY(b.settle());
        QVERIFY(m_store->task(id).value()->description.endsWith(line));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_store = test::seededStore(m_dir);
        QVERIFY(m_store);
        m_settings = std::make_unique<QSettings>(m_dir.filePath("workbench.ini"), QSettings::IniFormat);
        m_source = m_dir.filePath("source");
        for (const char* id : {"softmax-rows", "layernorm", "silu"})
            QVERIFY(copyFolder(QString(KMOSAIC_TASKS_DIR) + "/" + id, m_source + "/" + id));
    }

    void reimportAsksBeforeOverwritingEditsAndNamesChanges()
    {
        test::Workbench b(*m_store, *m_settings);
        b.window.show();
        edit(b, "softmax-rows", "\nEdited in the workbench.\n");
        appendTo(m_source + "/layernorm/description.md", "\nChanged in the folder.\n");
        appendTo(m_source + "/softmax-rows/description.md", "\nChanged in the folder too.\n");

        // Cancel: nothing changes.
        QStringList asked;
        QVERIFY(importAndAnswer(b, "cancelImport", &asked).isEmpty());
        QCOMPARE(asked, QStringList{"softmax-rows"});  // layernorm was not edited here; silu would not change
        QVERIFY(m_store->task("softmax-rows").value()->description.endsWith("Edited in the workbench.\n"));
        QVERIFY(!m_store->task("layernorm").value()->description.endsWith("Changed in the folder.\n"));

        // Keep my edits: the edited task stays, the others are imported, and the report names both.
        QString report = importAndAnswer(b, "keepEdits", &asked);
        QVERIFY2(report.contains("updated\tlayernorm") && report.contains("kept\tsoftmax-rows"), qPrintable(report));
        QVERIFY(!report.contains("silu"));
        QVERIFY(m_store->task("softmax-rows").value()->description.endsWith("Edited in the workbench.\n"));
        QVERIFY(m_store->task("layernorm").value()->description.endsWith("Changed in the folder.\n"));

        // Overwrite: asked again (the edit is still the latest change), and the report names the overwritten task.
        report = importAndAnswer(b, "overwrite", &asked);
        QCOMPARE(asked, QStringList{"softmax-rows"});
        QVERIFY2(report.contains("updated\tsoftmax-rows") && !report.contains("layernorm"), qPrintable(report));
        QVERIFY(m_store->task("softmax-rows").value()->description.endsWith("Changed in the folder too.\n"));
        QVERIFY(b.settle());
        QCOMPARE(b.controller.currentTask()->description, m_store->task("softmax-rows").value()->description);

        // Nothing edited since: no question, nothing changed.
        report = importAndAnswer(b, {});
        QVERIFY2(report.contains("0 new, 0 updated, 3 unchanged"), qPrintable(report));
    }
};

QTEST_MAIN(TestWorkbenchImport)
#include "test_workbench_import.moc"
