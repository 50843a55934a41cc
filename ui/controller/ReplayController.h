#pragma once
// What the runs and replay views show, read through the StoreWorker: every run's summary, the open run with its
// steps, the current step in full and a step's code to compare with. Follows storeChanged(), so a live run shows
// its new steps. No widgets; GUI thread; runs no SQL (each read is a request answered later, the latest of its
// channel wins: holding the next-step key does not queue reads).

#include "store/RunQuery.h"

#include <QObject>
#include <optional>

namespace km {
class StoreWorker;
}

namespace km::ui {

class ReplayController : public QObject {
    Q_OBJECT
public:
    explicit ReplayController(StoreWorker& store, QObject* parent = nullptr);

    const QList<RunSummary>& runs() const { return m_runs; }
    const std::optional<RunSummary>& currentRun() const { return m_run; }
    const QList<StepSummary>& steps() const { return m_steps; }
    // The step asked for last (selectStep), -1 when none; currentStep() is its detail once read.
    int currentStepIndex() const { return m_stepIdx; }
    const std::optional<StepDetail>& currentStep() const { return m_step; }

public Q_SLOTS:  // NOLINT(readability-redundant-access-specifiers): moc needs the slots marked
    // Rereads every run's summary (channel "runs"), and the open run's summary and steps; also on storeChanged().
    void reload();
    // Reads the run's summary and steps (channel "run"), then selects step `stepIdx` (-1: the first).
    void openRun(qint64 runId, int stepIdx = -1);
    // Reads the step at idx of the open run in full (channel "step"); out of range: ignored.
    void selectStep(int idx);
    void nextStep() { selectStep(m_stepIdx + 1); }
    void previousStep() { selectStep(m_stepIdx - 1); }
    // Reads any step's code (channel "compare"), answered by comparedCodeLoaded.
    void requestStepCode(qint64 stepId);

Q_SIGNALS:
    void runsChanged();
    void runOpened();  // currentRun() and steps() were read (again, after a change: the current step is kept)
    void stepLoaded();
    void comparedCodeLoaded(qint64 stepId, const QString& code);
    void failed(const QString& message);

private:
    void readRun(qint64 runId, int stepIdx, bool refresh);
    void readStep(qint64 stepId);

    StoreWorker& m_store;
    QList<RunSummary> m_runs;
    std::optional<RunSummary> m_run;
    QList<StepSummary> m_steps;
    int m_stepIdx = -1;
    std::optional<StepDetail> m_step;
};

}  // namespace km::ui
