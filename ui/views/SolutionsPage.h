#pragma once
// The Solutions mode of the main window: the solution review (queue, code, verdicts, history, decisions, Fix &
// Accept, Re-verify), and two solutions of one task compared side by side (mark one with M, go to the other,
// Shift+M). Owns the SolutionsController. GUI thread; runs no SQL.

#include "controller/DeepLink.h"

#include <QWidget>
#include <optional>

class QAction;
class QLabel;
class QSettings;
class QStackedWidget;

namespace km {
class ServiceHost;
class StoreWorker;
}  // namespace km
namespace km::replay {
class CompareView;
}

namespace km::ui {

class SolutionsController;
class SolutionsView;

class SolutionsPage : public QWidget {
    Q_OBJECT
public:
    SolutionsPage(StoreWorker& store, ServiceHost* services, const QString& reviewer, QSettings& settings,
                  QWidget* parent = nullptr);

    SolutionsController* controller() const { return m_controller; }
    SolutionsView* view() const { return m_view; }
    replay::CompareView* compareView() const { return m_compare; }
    bool comparing() const;
    // The review's keyed actions and the comparison's, for the window's Solution menu (and the mode's key group).
    QList<QAction*> actions() const { return m_actions; }
    std::optional<DeepLink> currentLink() const;

public Q_SLOTS:
    void openSolution(qint64 id);
    void setTaskFilter(const QString& taskId);
    void markForCompare();
    void compareWithMarked();
    void backToReview();

Q_SIGNALS:
    void message(const QString& text);

private:
    QAction* addPageAction(QWidget* on, const QString& name, const QString& text, const QKeySequence& key);

    StoreWorker& m_store;
    SolutionsController* m_controller;
    SolutionsView* m_view;
    replay::CompareView* m_compare;
    QStackedWidget* m_stack;
    QLabel* m_marked;
    QList<QAction*> m_actions;
    qint64 m_markedId = 0;
};

}  // namespace km::ui
