// The review panel driven by the keyboard alone, in a top-level window with a stand-in task list and search box:
// decisions, reasons, comments, skip, undo, keys silent while typing, and the "?" list of keys.
#include "ReviewTestStore.h"
#include "review/ReviewPanel.h"
#include "review/ReviewSession.h"
#include "review/ShortcutHelpDialog.h"

#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

using namespace km;
using namespace km::ui;

namespace {
// A text input that claims no key in ShortcutOverride (like some third-party editors): only the guard keeps the
// review keys away from it.
class SilentEditor : public QLineEdit {
public:
    using QLineEdit::QLineEdit;

protected:
    bool event(QEvent* e) override
    {
        if (e->type() == QEvent::ShortcutOverride) {
            e->ignore();
            return false;
        }
        return QLineEdit::event(e);
    }
};
}  // namespace

class TestReviewPanel : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<TaskStore> m_store;     // the test's own connection, for setup and checks
    std::unique_ptr<StoreWorker> m_worker;  // the session's
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<ReviewSession> m_session;
    std::unique_ptr<QWidget> m_window;
    ReviewPanel* m_panel = nullptr;
    QListWidget* m_list = nullptr;  // stands in for the main window's task table
    QLineEdit* m_search = nullptr;
    SilentEditor* m_silent = nullptr;
    QStringList m_q;
    QHash<QString, ReviewStatus> m_initial;

    // Keys go where a keyboard sends them: to the focus widget.
    QWidget* focus() const { return QApplication::focusWidget() ? QApplication::focusWidget() : m_window.get(); }
    void press(Qt::Key key, Qt::KeyboardModifiers mods = Qt::NoModifier) { QTest::keyClick(focus(), key, mods); }
    void type(const QString& text) { QTest::keyClicks(focus(), text); }
    // As stored, once the session's writes are answered.
    ReviewStatus status(int i) const
    {
        if (!test::settle(*m_worker))
            qWarning("the store worker is still busy");
        return test::statusIn(*m_store, m_q.at(i));
    }
    QString id(int i) const { return m_q.at(i); }
    QString comment() const { return m_panel->findChild<QPlainTextEdit*>("commentEdit")->toPlainText(); }

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        m_store = test::openSeededStore(*m_dir);
        QVERIFY(m_store);
        m_q = m_store->matchingIds({}).value().mid(0, 5);
        for (const QString& t : m_q)
            m_initial.insert(t, test::statusIn(*m_store, t));
        m_settings = std::make_unique<QSettings>(m_dir->filePath("review.ini"), QSettings::IniFormat);
        m_worker = test::openWorker(m_store->path());
        m_session = std::make_unique<ReviewSession>(*m_worker, "anna");
        m_window = std::make_unique<QWidget>();
        auto* layout = new QVBoxLayout(m_window.get());
        m_search = new QLineEdit(m_window.get());
        m_silent = new SilentEditor(m_window.get());
        m_list = new QListWidget(m_window.get());
        m_list->addItems(m_q);
        m_panel = new ReviewPanel(*m_session, *m_settings, m_window.get());
        layout->addWidget(m_search);
        layout->addWidget(m_silent);
        layout->addWidget(m_list);
        layout->addWidget(m_panel);
        m_session->setQueue(m_q);
        QVERIFY(test::settle(*m_worker));
        m_window->show();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_list->setFocus();  // the curator starts in the task list
        QTRY_COMPARE(QApplication::focusWidget(), m_list);
    }

    void cleanup()
    {
        m_window.reset();
        m_session.reset();
        m_worker.reset();
        m_settings.reset();
        m_store.reset();
        m_dir.reset();
        m_initial.clear();
    }

    void keyboardOnlyReview()
    {
        auto* progress = m_panel->findChild<QLabel*>("progressLabel");
        QCOMPARE(progress->text(), QString("0 of 5 reviewed"));

        // Task 1: reason 2, accept.
        press(Qt::Key_2);
        press(Qt::Key_A);
        QCOMPARE(toString(status(0)), toString(ReviewStatus::Accepted));
        QCOMPARE(m_session->currentTaskId(), id(1));

        // Task 2: reason 1, choose reject (the cursor goes to the comment), write, Ctrl+Return.
        press(Qt::Key_1);
        press(Qt::Key_X, Qt::ShiftModifier);
        QCOMPARE(toString(status(1)), toString(m_initial.value(id(1))));  // chosen, not recorded
        QTRY_VERIFY(focus()->objectName() == "commentEdit");
        type("spec and reference disagree");
        press(Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(toString(status(1)), toString(ReviewStatus::Rejected));
        QVERIFY(focus() != m_panel->findChild<QPlainTextEdit*>("commentEdit"));  // the keys work again
        QVERIFY(comment().isEmpty());

        // Task 3: skip.
        press(Qt::Key_Space);
        QCOMPARE(m_session->currentTaskId(), id(3));

        // Task 4: a comment first (e, type, Esc), then needs changes; then undo it.
        press(Qt::Key_E);
        type("shapes");
        press(Qt::Key_Escape);
        QCOMPARE(focus(), m_list);
        press(Qt::Key_C);
        QCOMPARE(toString(status(3)), toString(ReviewStatus::NeedsChanges));
        QCOMPARE(progress->text(), QString("3 of 5 reviewed"));
        press(Qt::Key_Backspace);
        QCOMPARE(m_session->currentTaskId(), id(3));  // back on the undone task

        QCOMPARE(toString(status(0)), toString(ReviewStatus::Accepted));
        QCOMPARE(toString(status(1)), toString(ReviewStatus::Rejected));
        QCOMPARE(toString(status(2)), toString(m_initial.value(id(2))));
        QCOMPARE(toString(status(3)), toString(m_initial.value(id(3))));
        QCOMPARE(toString(status(4)), toString(m_initial.value(id(4))));
        QCOMPARE(progress->text(), QString("2 of 5 reviewed"));

        const auto a0 = test::statusEntries(*m_store, id(0));
        QCOMPARE(a0.size(), 1);
        QCOMPARE(a0[0].actor, QString("anna"));
        QCOMPARE(a0[0].reason, QString("R2"));
        QCOMPARE(a0[0].detail.value("comment").toString(), QString());
        const auto a1 = test::statusEntries(*m_store, id(1));
        QCOMPARE(a1.size(), 1);
        QCOMPARE(a1[0].actor, QString("anna"));
        QCOMPARE(a1[0].reason, QString("R1"));
        QCOMPARE(a1[0].detail.value("comment").toString(), QString("spec and reference disagree"));
        QVERIFY(test::statusEntries(*m_store, id(2)).isEmpty());
        const auto a3 = test::statusEntries(*m_store, id(3));
        QCOMPARE(a3.size(), 2);
        QCOMPARE(a3[0].detail.value("to").toString(), QString("needs_changes"));
        QCOMPARE(a3[0].reason, QString());
        QCOMPARE(a3[0].detail.value("comment").toString(), QString("shapes"));
        QCOMPARE(a3[1].actor, QString("anna"));
        QCOMPARE(a3[1].reason, QString("undo"));
        QCOMPARE(a3[1].detail.value("to").toString(), toString(m_initial.value(id(3))));

        auto* recent = m_panel->findChild<QListWidget*>("recentList");
        QCOMPARE(recent->count(), 3);
        QVERIFY(recent->item(0)->text().contains(id(3)) && recent->item(0)->text().contains("undone"));

        const QString shots = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            m_panel->resize(520, 640);
            QVERIFY(m_panel->grab().save(shots + "/review-panel.png"));
        }
    }

    void typingInTextFieldsDecidesNothing()
    {
        const qsizetype reviewsBefore = m_store->audit().value().size();
        press(Qt::Key_E);
        QTRY_VERIFY(focus()->objectName() == "commentEdit");
        type("axc 12 ?");
        press(Qt::Key_Backspace);
        QCOMPARE(comment(), QString("axc 12 "));
        QVERIFY(!m_panel->findChild<ShortcutHelpDialog*>());  // "?" was typed, not pressed
        press(Qt::Key_Escape);

        m_search->setFocus();
        QTRY_COMPARE(focus(), m_search);
        type("ax c");
        QCOMPARE(m_search->text(), QString("ax c"));
        m_silent->setFocus();  // an input that claims no keys: the guard sends them to it anyway
        QTRY_COMPARE(focus(), static_cast<QWidget*>(m_silent));
        type("xa");
        QCOMPARE(m_silent->text(), QString("xa"));

        for (int i = 0; i < m_q.size(); ++i)
            QCOMPARE(toString(status(i)), toString(m_initial.value(id(i))));
        QCOMPARE(m_store->audit().value().size(), reviewsBefore);
        QCOMPARE(m_session->comment(), QString("axc 12 "));
    }

    void ctrlReturnSavesFromTheCommentButNotFromOtherTextFields()
    {
        press(Qt::Key_A, Qt::ShiftModifier);  // choose accept; the cursor goes to the comment
        QTRY_VERIFY(focus()->objectName() == "commentEdit");
        press(Qt::Key_Escape);
        m_search->setFocus();
        QTRY_COMPARE(focus(), m_search);
        press(Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(toString(status(0)), toString(m_initial.value(id(0))));  // not from the search box
        m_list->setFocus();
        QTRY_COMPARE(focus(), m_list);
        press(Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(toString(status(0)), toString(ReviewStatus::Accepted));
    }

    void revisitThroughTheDecisionList()
    {
        press(Qt::Key_A);
        press(Qt::Key_A);
        QCOMPARE(m_session->currentTaskId(), id(2));
        auto* recent = m_panel->findChild<QListWidget*>("recentList");
        recent->setFocus();
        QTRY_COMPARE(focus(), static_cast<QWidget*>(recent));
        press(Qt::Key_End);  // the oldest decision: task 1
        press(Qt::Key_Return);
        QCOMPARE(m_session->currentTaskId(), id(0));
        press(Qt::Key_X);
        QCOMPARE(toString(status(0)), toString(ReviewStatus::Rejected));
        QCOMPARE(m_store->reviews(id(0)).value().size(), 2);
    }

    void questionMarkListsEveryKey()
    {
        press(Qt::Key_Question);
        auto* dialog = m_panel->findChild<ShortcutHelpDialog*>("shortcutHelpDialog");
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        auto* table = dialog->findChild<QTableWidget*>("shortcutHelpTable");
        QVERIFY(table);
        QCOMPARE(table->rowCount(), int(shortcutCatalog().size()) + 1);  // and Esc
        for (int row = 0; row < shortcutCatalog().size(); ++row) {
            const ShortcutInfo& info = shortcutCatalog().at(row);
            QCOMPARE(table->item(row, ShortcutHelpDialog::KeyColumn)->text(),
                     info.defaultKey.toString(QKeySequence::NativeText));
            QVERIFY(table->item(row, ShortcutHelpDialog::ActionColumn)->text().startsWith(info.text));
            QCOMPARE(table->item(row, ShortcutHelpDialog::DescriptionColumn)->text(), info.description);
        }
        QVERIFY(table->item(0, 1)->text() == "A" && table->item(0, 0)->text() == "Accept");
        QCOMPARE(table->item(11, 0)->text(), QString("Reason 1: R1 unclear spec"));
        QTest::keyClick(dialog, Qt::Key_Escape);
        QTRY_VERIFY(!dialog->isVisible());
    }

    void buttonsAndMenuShowTheKeys()
    {
        QAction* accept = m_panel->action(ReviewAction::Accept);
        QCOMPARE(accept->shortcut(), QKeySequence(Qt::Key_A));
        QVERIFY2(accept->toolTip().contains("[A]"), qPrintable(accept->toolTip()));
        QVERIFY(m_panel->menu()->actions().contains(accept));
        auto* button = m_panel->findChild<QToolButton*>("acceptButton");
        QVERIFY(button && button->text().contains("[A]"));
        QCOMPARE(m_panel->action(ReviewAction::Save)->shortcuts().size(), 2);  // Return and the keypad's Enter
    }
};

QTEST_MAIN(TestReviewPanel)
#include "test_review_panel.moc"
