// ShortcutMap: defaults, conflicts refused, persistence through a QSettings on an INI file; a remapped key drives
// the panel (the old key then does nothing); the remap dialog refuses conflicts; reason codes from the settings.
#include "ReviewTestStore.h"
#include "review/ReviewPanel.h"
#include "review/ReviewSession.h"
#include "review/ShortcutDialog.h"

#include <QKeySequenceEdit>
#include <QLabel>
#include <QListWidget>
#include <QSettings>
#include <QVBoxLayout>

using namespace km;
using namespace km::ui;

class TestShortcutMap : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString iniPath(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private Q_SLOTS:
    void defaultsAreDistinctAndComplete()
    {
        ShortcutMap map;
        QCOMPARE(shortcutCatalog().size(), kReviewActionCount);
        QSet<QString> ids;
        QSet<QString> keys;
        for (const ShortcutInfo& info : shortcutCatalog()) {
            ids.insert(info.id);
            keys.insert(map.key(info.action).toString(QKeySequence::PortableText));
            QVERIFY(map.actionFor(info.defaultKey) == std::optional<ReviewAction>(info.action));
        }
        QCOMPARE(ids.size(), kReviewActionCount);
        QCOMPARE(keys.size(), kReviewActionCount);
        QCOMPARE(map.key(ReviewAction::Accept), QKeySequence(Qt::Key_A));
        QCOMPARE(map.key(ReviewAction::Reject), QKeySequence(Qt::Key_X));
        QCOMPARE(map.key(ReviewAction::NeedsChanges), QKeySequence(Qt::Key_C));
        QCOMPARE(map.key(ReviewAction::Skip), QKeySequence(Qt::Key_Space));
        QCOMPARE(map.key(ReviewAction::Undo), QKeySequence(Qt::Key_Backspace));
        QCOMPARE(map.key(ReviewAction::Save), QKeySequence(Qt::CTRL | Qt::Key_Return));
        QCOMPARE(map.key(ReviewAction::Help), QKeySequence(Qt::Key_Question));
        QCOMPARE(map.key(ReviewAction::Reason9), QKeySequence(Qt::Key_9));
    }

    void conflictsAndBadKeysAreRefused()
    {
        ShortcutMap map;
        QVERIFY(map.setKey(ReviewAction::Accept, QKeySequence(Qt::Key_Y)).ok());
        const Status taken = map.setKey(ReviewAction::Reject, QKeySequence(Qt::Key_Y));
        QVERIFY(!taken.ok());
        QCOMPARE(taken.error().code, ErrorCode::Conflict);
        QVERIFY2(taken.error().message.contains("Accept"), qPrintable(taken.error().message));
        QCOMPARE(map.key(ReviewAction::Reject), QKeySequence(Qt::Key_X));
        QVERIFY(!map.setKey(ReviewAction::Accept, QKeySequence(Qt::Key_X)).ok());  // Reject's
        QVERIFY(!map.setKey(ReviewAction::Accept, QKeySequence::fromString("Ctrl+K, A")).ok());
        QVERIFY(!map.setKey(ReviewAction::Accept, QKeySequence(Qt::Key_Escape)).ok());
        QVERIFY(!map.setKey(ReviewAction::Accept, QKeySequence(Qt::Key_Tab)).ok());
        QCOMPARE(map.key(ReviewAction::Accept), QKeySequence(Qt::Key_Y));
        // A swap: free the key first.
        QVERIFY(map.setKey(ReviewAction::Reject, QKeySequence()).ok());
        QVERIFY(map.setKey(ReviewAction::Accept, QKeySequence(Qt::Key_X)).ok());
        QVERIFY(map.setKey(ReviewAction::Reject, QKeySequence(Qt::Key_A)).ok());
        QVERIFY(map.actionFor(QKeySequence(Qt::Key_A)) == std::optional<ReviewAction>(ReviewAction::Reject));
    }

    void persistsThroughAnIniFile()
    {
        ShortcutMap map;
        QVERIFY(map.setKey(ReviewAction::Accept, QKeySequence(Qt::Key_Y)).ok());
        QVERIFY(map.setKey(ReviewAction::Save, QKeySequence(Qt::CTRL | Qt::Key_S)).ok());
        {
            QSettings out(iniPath("persist.ini"), QSettings::IniFormat);
            map.save(out);
        }
        QSettings in(iniPath("persist.ini"), QSettings::IniFormat);
        QCOMPARE(in.value("review/shortcuts/accept").toString(), QString("Y"));
        QVERIFY(!in.contains("review/shortcuts/reject"));  // defaults are not written
        ShortcutMap loaded;
        QCOMPARE(loaded.load(in), QStringList());
        QVERIFY(loaded == map);
        QCOMPARE(loaded.key(ReviewAction::Save), QKeySequence(Qt::CTRL | Qt::Key_S));
    }

    void badStoredKeysFallBackAndAreReported()
    {
        QSettings s(iniPath("bad.ini"), QSettings::IniFormat);
        s.setValue("review/shortcuts/reject", "A");        // Accept, earlier in the catalogue, keeps A
        s.setValue("review/shortcuts/skip", "Ctrl+K, S");  // a sequence
        ShortcutMap map;
        const QStringList problems = map.load(s);
        QCOMPARE(problems.size(), 2);
        QCOMPARE(map.key(ReviewAction::Accept), QKeySequence(Qt::Key_A));
        QVERIFY(map.key(ReviewAction::Reject).isEmpty());
        QVERIFY(map.key(ReviewAction::Skip).isEmpty());
    }

    void reasonCodesComeFromTheSettings()
    {
        QSettings s(iniPath("reasons.ini"), QSettings::IniFormat);
        QVERIFY(loadReasonCodes(s) == defaultReasonCodes());
        QStringList many;
        for (int i = 1; i <= 11; ++i)
            many.append(QStringLiteral("Q%1 label %1").arg(i));
        s.setValue("review/reasons", many);
        const QList<ReasonCode> codes = loadReasonCodes(s);
        QCOMPARE(int(codes.size()), kMaxReasonCodes);
        QVERIFY(codes.first() == (ReasonCode{"Q1", "label 1"}));
        saveReasonCodes(s, {{"N1", "no tests"}, {"N2", {}}});
        QVERIFY(loadReasonCodes(s) == (QList<ReasonCode>{{"N1", "no tests"}, {"N2", {}}}));
    }

    void remappedKeyDrivesThePanel()
    {
        QTemporaryDir dir;
        auto store = test::openSeededStore(dir);
        QVERIFY(store);
        const QString first = store->matchingIds({}).value().first();
        const ReviewStatus before = test::statusIn(*store, first);
        QSettings settings(iniPath("panel.ini"), QSettings::IniFormat);
        ShortcutMap map;
        QVERIFY(map.setKey(ReviewAction::Accept, QKeySequence(Qt::Key_Y)).ok());
        map.save(settings);
        settings.setValue("review/reasons", QStringList{"K1 kernel too small"});

        auto worker = test::openWorker(store->path());
        ReviewSession session(*worker, "anna");
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* panel = new ReviewPanel(session, settings, &window);
        layout->addWidget(panel);
        session.setQueue(store->matchingIds({}).value());
        QVERIFY(test::settle(*worker));
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        panel->findChild<QListWidget*>("recentList")->setFocus();
        QTRY_VERIFY(QApplication::focusWidget());

        QTest::keyClick(QApplication::focusWidget(), Qt::Key_1);
        QCOMPARE(session.reason(), QString("K1"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_A);
        QCOMPARE(toString(test::statusIn(*store, first)), toString(before));  // 'a' is no review key now
        QVERIFY(store->reviews(first).value().isEmpty());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Y);
        QVERIFY(test::settle(*worker));
        QCOMPARE(toString(test::statusIn(*store, first)), toString(ReviewStatus::Accepted));
        QCOMPARE(store->reviews(first).value().last().reason, QString("K1"));

        // Through the dialog: a key taken by another action is refused; a free one is applied and saved.
        panel->editShortcuts();
        auto* dialog = panel->findChild<ShortcutDialog*>("shortcutDialog");
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        auto* rejectEdit = dialog->findChild<QKeySequenceEdit*>("keyEdit-reject");
        QVERIFY(rejectEdit);
        rejectEdit->setFocus();
        QTest::keyClick(rejectEdit, Qt::Key_Y);  // Accept's key
        auto* message = dialog->findChild<QLabel*>("shortcutMessage");
        QTRY_VERIFY2(message->text().contains("Accept"), qPrintable(message->text()));
        QCOMPARE(dialog->map().key(ReviewAction::Reject), QKeySequence(Qt::Key_X));
        QTest::keyClick(rejectEdit, Qt::Key_R);
        QTRY_COMPARE(dialog->map().key(ReviewAction::Reject), QKeySequence(Qt::Key_R));
        dialog->accept();
        QCOMPARE(panel->action(ReviewAction::Reject)->shortcut(), QKeySequence(Qt::Key_R));
        QCOMPARE(settings.value("review/shortcuts/reject").toString(), QString("R"));
    }
};

QTEST_MAIN(TestShortcutMap)
#include "test_shortcut_map.moc"
