#pragma once
// The solution review (objectName solutionsView): the queue (table solutionTable, filters, "n of m"), the selected
// solution's code, verdicts and history, and the decision panel: single keys as in task review (accept, reject,
// needs changes, skip, undo, comment, reason codes of the solutions' own list), the acceptance gate shown, an
// override dialog when accepting past it, Fix & Accept (edit, save as a new linked solution, re-verify) and
// Re-verify with progress and Cancel. Drives a SolutionsController. GUI thread.

#include "review/ReasonCodes.h"
#include "review/ShortcutMap.h"
#include "solutions/SolutionFilterProxy.h"

#include <QPointer>
#include <QWidget>

class QAction;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSettings;
class QTableView;

namespace km::ui {

class OverrideDialog;
class SolutionDetailPane;
class SolutionFilterBar;
class SolutionTableModel;
class SolutionsController;
class TypingGuard;

class SolutionsView : public QWidget {
    Q_OBJECT
public:
    SolutionsView(SolutionsController& controller, QSettings& settings, QWidget* parent = nullptr);

    SolutionTableModel* model() const { return m_model; }
    SolutionFilterProxy* proxy() const { return m_proxy; }
    SolutionDetailPane* detail() const { return m_detail; }
    QAction* action(ReviewAction a) const;
    const QList<ReasonCode>& reasons() const { return m_reasons; }
    // The override dialog while it is open.
    OverrideDialog* overrideDialog() const { return m_override; }

    void selectSolution(qint64 id);
    qint64 currentSolutionId() const;
    void setFilter(const SolutionViewFilter& f);

    // The buttons, for menus and tests.
    QPushButton* fixButton() const { return m_fix; }
    QPushButton* saveFixButton() const { return m_saveFix; }
    QPushButton* reverifyButton() const { return m_reverify; }
    QPushButton* cancelVerifyButton() const { return m_cancelVerify; }

private:
    QWidget* buildQueue();
    QWidget* buildDecisionPanel();
    void createActions();
    void trigger(ReviewAction a);
    void decide(ReviewStatus to);
    void toggleReason(int index);
    void moveToNext();
    void onSolutionsChanged();
    void onDetailLoaded();
    void updateCount();
    void showMessage(const QString& text, bool isError);
    void saveFix();
    bool isReviewKey(QKeyCombination key) const;

    SolutionsController& m_controller;
    ShortcutMap m_shortcuts;
    QList<ReasonCode> m_reasons;
    QList<QAction*> m_actions;  // indexed by ReviewAction; null for those the view has not
    SolutionTableModel* m_model;
    SolutionFilterProxy* m_proxy;
    QTableView* m_table = nullptr;
    SolutionFilterBar* m_filters = nullptr;
    QLabel* m_count = nullptr;
    SolutionDetailPane* m_detail = nullptr;
    QLabel* m_gate = nullptr;
    QListWidget* m_reasonList = nullptr;
    QPlainTextEdit* m_comment = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_progressText = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_fix = nullptr;
    QPushButton* m_saveFix = nullptr;
    QPushButton* m_reverify = nullptr;
    QPushButton* m_cancelVerify = nullptr;
    TypingGuard* m_guard = nullptr;
    QPointer<OverrideDialog> m_override;
    int m_reason = -1;    // the chosen reason code's index; -1: none
    qint64 m_wantId = 0;  // a solution to select once the queue lists it (a fix just saved)
};

}  // namespace km::ui
