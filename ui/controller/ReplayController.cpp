// The replay reads (ReplayController.h): each a StoreWorker request on its own channel.
#include "controller/ReplayController.h"

#include "store/StoreWorker.h"

namespace km::ui {

ReplayController::ReplayController(StoreWorker& store, QObject* parent) : QObject(parent), m_store(store)
{
    connect(&m_store, &StoreWorker::storeChanged, this, &ReplayController::reload);
}

void ReplayController::reload()
{
    m_store.submit<QList<RunSummary>>(
        QStringLiteral("runs"), [](TaskStore& s) { return runSummaries(s.database()); }, this,
        [this](Result<QList<RunSummary>> r) {
            if (!r) {
                Q_EMIT failed(r.error().message);
                return;
            }
            m_runs = std::move(r).value();
            Q_EMIT runsChanged();
        });
    if (m_run)
        readRun(m_run->id, m_stepIdx, true);
}

void ReplayController::openRun(qint64 runId, int stepIdx)
{
    readRun(runId, stepIdx, false);
}

void ReplayController::readRun(qint64 runId, int stepIdx, bool refresh)
{
    // A refresh (the store changed) has a channel of its own: it must not drop an open the user (or a link) asked for.
    m_store.submit<RunWithSteps>(
        refresh ? QStringLiteral("run-refresh") : QStringLiteral("run"),
        [runId](TaskStore& s) { return runWithSteps(s.database(), runId); }, this,
        [this, stepIdx, refresh](Result<RunWithSteps> r) {
            if (!r) {
                Q_EMIT failed(r.error().message);
                return;
            }
            const bool sameRun = m_run && m_run->id == r.value().run.id;
            m_run = std::move(r.value().run);
            m_steps = std::move(r.value().steps);
            if (!refresh || !sameRun) {
                m_stepIdx = -1;
                m_step.reset();
            }
            Q_EMIT runOpened();
            if (refresh && sameRun) {
                // Kept; read again only when the step on screen is gone (a damaged or rewritten run).
                if (m_stepIdx >= m_steps.size())
                    selectStep(int(m_steps.size()) - 1);
                return;
            }
            if (!m_steps.isEmpty())
                selectStep(stepIdx >= 0 && stepIdx < m_steps.size() ? stepIdx : 0);
        });
}

void ReplayController::selectStep(int idx)
{
    if (!m_run || idx < 0 || idx >= m_steps.size())
        return;
    m_stepIdx = idx;
    readStep(m_steps[idx].id);
}

void ReplayController::readStep(qint64 stepId)
{
    m_store.submit<StepDetail>(
        QStringLiteral("step"), [stepId](TaskStore& s) { return stepDetail(s.database(), stepId); }, this,
        [this](Result<StepDetail> r) {
            if (!r) {
                Q_EMIT failed(r.error().message);
                return;
            }
            // A step of a run no longer open (the new one had no step to ask for) is not shown.
            if (!m_run || r.value().step.runId != m_run->id)
                return;
            m_step = std::move(r).value();
            Q_EMIT stepLoaded();
        });
}

void ReplayController::requestStepCode(qint64 stepId)
{
    m_store.submit<QString>(
        QStringLiteral("compare"), [stepId](TaskStore& s) { return stepCode(s.database(), stepId); }, this,
        [this, stepId](Result<QString> r) {
            if (!r) {
                Q_EMIT failed(r.error().message);
                return;
            }
            Q_EMIT comparedCodeLoaded(stepId, r.value());
        });
}

}  // namespace km::ui
