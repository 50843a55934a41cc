#pragma once
// One run replayed step by step: the step timeline and the speedup chart above the current step's tabs. Fed with
// values (setRun, setStep, setComparedCode); asks for what it needs through signals (stepRequested,
// comparedStepRequested), so it never touches the store. Its actions carry the keys and go into the main window's
// menu. GUI thread.

#include "store/RunQuery.h"

#include <QWidget>

class QAction;
class QLabel;
class QScrollArea;

namespace km::replay {

class ArrivingReply;
class SpeedupChart;
class StepTimeline;
class StepView;

class TrajectoryView : public QWidget {
    Q_OBJECT
public:
    explicit TrajectoryView(QWidget* parent = nullptr);

    // A new run, or the same run grown (a live run): the current step and the compared step stay when they still
    // exist.
    void setRun(const RunSummary& run, const QList<StepSummary>& steps);
    // The reply of step `stepIdx` of the open run as it streams in (a live run); ignored once that step is recorded.
    // setRun() hides it when the step arrives or another run opens.
    void showArrivingReply(int stepIdx, const QString& textSoFar);
    // The step to show (an answer to stepRequested).
    void setStep(const StepDetail& detail);
    // The code of the step the user picked to compare with (an answer to comparedStepRequested).
    void setComparedCode(qint64 stepId, const QString& code);

    const RunSummary& run() const { return m_run; }
    const QList<StepSummary>& steps() const { return m_steps; }
    // The step shown or asked for (StepSummary::idx); -1 for none.
    int currentIdx() const { return m_currentIdx; }
    // The step the Diff tab compares with; 0: the previous step.
    qint64 comparedStepId() const { return m_comparedStepId; }
    // `kmosaic-workbench --open run/ID/step/N` for the current step (N: its idx + 1, as the views count steps;
    // controller/DeepLink reads it), or run/ID without one.
    QString linkText() const;

    // Next step (Right, J), previous (Left, K), first (Home), last (End), toggle diff mode (D), compare with (C),
    // copy link (Ctrl+Shift+L); shortcuts work while focus is within this view.
    QList<QAction*> actions() const { return m_actions; }
    QAction* action(const QString& objectName) const;

    StepTimeline* timeline() const { return m_timeline; }
    SpeedupChart* chart() const { return m_chart; }
    StepView* stepView() const { return m_stepView; }
    ArrivingReply* arrivingReply() const { return m_arriving; }

    // Slots (plain members: connect them by pointer).
    // Asks for the step (emits stepRequested) and marks it current.
    void goToStep(int idx);
    void nextStep();
    void previousStep();
    void firstStep();
    void lastStep();
    void toggleDiffMode();
    // Opens the chooser of the compared step.
    void chooseComparedStep();
    // Compares with this step (0: the previous step); asks for its code.
    void compareWith(qint64 stepId);
    void copyLink();

Q_SIGNALS:
    void stepRequested(int idx);
    void comparedStepRequested(qint64 stepId);

private:
    int positionOf(int idx) const;
    QString stepLabel(qint64 stepId) const;
    void refreshHeader();
    void applyDiffBase();
    QAction* addKeyAction(const QString& name, const QString& text, const QList<QKeySequence>& keys,
                          void (TrajectoryView::*slot)());

    QLabel* m_header;
    ArrivingReply* m_arriving;
    StepTimeline* m_timeline;
    QScrollArea* m_timelineScroll;
    SpeedupChart* m_chart;
    StepView* m_stepView;
    QList<QAction*> m_actions;
    RunSummary m_run;
    QList<StepSummary> m_steps;
    int m_currentIdx = -1;
    qint64 m_comparedStepId = 0;
    QString m_comparedCode;
    bool m_haveComparedCode = false;
};

}  // namespace km::replay
