#pragma once
// The Runs mode of the main window: the runs list on the left; on the right the open run replayed step by step, or
// two runs compared. Wires the ReplayController (what is read) to the RunsView and the TrajectoryView (what is
// shown); its actions (steps, runs, compare, copy link) carry the keys and work while focus is anywhere on the
// page. GUI thread; runs no SQL.

#include "controller/DeepLink.h"
#include "store/RunQuery.h"

#include <QWidget>
#include <optional>

class QAction;
class QLabel;
class QStackedWidget;

namespace km {
class StoreWorker;
}
namespace km::replay {
class CompareView;
class TrajectoryView;
}  // namespace km::replay

namespace km::ui {

class ReplayController;
class RunsView;

class RunsPage : public QWidget {
    Q_OBJECT
public:
    RunsPage(StoreWorker& store, QWidget* parent = nullptr);

    ReplayController* controller() const { return m_controller; }
    RunsView* runsView() const { return m_runs; }
    replay::TrajectoryView* trajectory() const { return m_trajectory; }
    replay::CompareView* compareView() const { return m_compare; }
    bool comparing() const;
    // Every action of the page, for the window's Run menu.
    QList<QAction*> actions() const { return m_actions; }
    QAction* action(const QString& objectName) const;
    // The link to what is shown: run/ID/step/N (N from 1), run/ID, or nullopt with no run open.
    std::optional<DeepLink> currentLink() const;

public Q_SLOTS:
    // Opens the run (its step, when given) once the list has it; the filters are cleared when they hide it.
    void openRun(qint64 runId, std::optional<int> stepIdx = std::nullopt);
    void setTaskFilter(const QString& taskId);
    void markForCompare();     // the current run becomes side A of the next comparison
    void compareWithMarked();  // the marked run against the current one
    void backToReplay();
    // Marks runs whose process is gone as interrupted (a write), then rereads the list: at start, on File >
    // Reload and when the mode is shown (a process killed leaves no change in the store to follow).
    void refresh();

Q_SIGNALS:
    void message(const QString& text);  // for the status bar

private:
    QAction* addPageAction(const QString& name, const QString& text, const QList<QKeySequence>& keys);
    void applyPendingOpen();
    void loadComparison(qint64 a, qint64 b);

    StoreWorker& m_store;
    ReplayController* m_controller;
    RunsView* m_runs;
    replay::TrajectoryView* m_trajectory;
    replay::CompareView* m_compare;
    QStackedWidget* m_right;
    QLabel* m_marked;
    QList<QAction*> m_actions;
    std::optional<std::pair<qint64, std::optional<int>>> m_pendingOpen;  // asked before the list had the run
    qint64 m_markedRun = 0;
    bool m_pendingReread = false;   // the list was asked again for the pending run
    bool m_rereadAnswered = false;  // and has answered
};

}  // namespace km::ui
