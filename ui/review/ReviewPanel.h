#pragma once
// The keyboard review panel: decision buttons, reason codes, comment, progress and this session's decisions, with
// one QAction per review key (window-wide, silent while a text field has focus). Drives a ReviewSession. GUI thread.

#include "review/ReasonCodes.h"
#include "review/ShortcutMap.h"

#include <QPointer>
#include <QWidget>
#include <functional>

class QAction;
class QLabel;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QSettings;

namespace km::ui {

class DecisionList;
class ReviewSession;
class ShortcutHelpDialog;
class TypingGuard;

class ReviewPanel : public QWidget {
    Q_OBJECT
public:
    // Reads the keys and reason codes from `settings` and writes remapped keys back to it. Session and settings live
    // as long as the panel; at shutdown either may go first (the destructor cuts the links).
    ReviewPanel(ReviewSession& session, QSettings& settings, QWidget* parent = nullptr);
    ~ReviewPanel() override;

    ReviewSession& session() { return m_session; }
    // "Review": every action with its key, and "Edit review keys…"; for the window's menu bar.
    QMenu* menu() const { return m_menu; }
    QAction* action(ReviewAction a) const { return m_actions.at(int(a)); }
    const ShortcutMap& shortcuts() const { return m_shortcuts; }
    const QList<ReasonCode>& reasons() const { return m_reasons; }

    void setShortcuts(const ShortcutMap& map);  // applies the keys and saves them to the settings
    void showShortcutHelp();
    // What the Help key opens instead of the review keys' list (the window's list of every key); none: that list.
    void setHelpHandler(std::function<void()> handler) { m_helpHandler = std::move(handler); }
    void editShortcuts();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void createActions();
    void applyShortcuts();
    void trigger(ReviewAction a);
    void toggleReason(int index);
    void enterComment();
    void leaveComment();
    void showCurrent();
    void showDraft();
    void showHistory();
    void showMessage(const QString& text, bool isError);
    bool isReviewKey(QKeyCombination key) const;

    ReviewSession& m_session;
    QSettings& m_settings;
    ShortcutMap m_shortcuts;
    QList<ReasonCode> m_reasons;
    QList<QAction*> m_actions;  // indexed by ReviewAction
    QMenu* m_menu = nullptr;
    QLabel* m_task;
    QLabel* m_progress;
    QListWidget* m_reasonList;
    QPlainTextEdit* m_comment;
    QLabel* m_draft;
    QLabel* m_message;
    DecisionList* m_recent;
    TypingGuard* m_guard;
    ShortcutHelpDialog* m_help = nullptr;
    std::function<void()> m_helpHandler;
    QPointer<QWidget> m_returnFocus;  // where Esc in the comment field goes back to
};

}  // namespace km::ui
