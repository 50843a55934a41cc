// TrajectoryView: timeline, chart and the current step of one run.
#include "replay/TrajectoryView.h"

#include "replay/ArrivingReply.h"
#include "replay/DiffView.h"
#include "replay/SpeedupChart.h"
#include "replay/StepChooser.h"
#include "replay/StepColors.h"
#include "replay/StepTimeline.h"
#include "replay/StepView.h"
#include "services/RunErrorText.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace km::replay {

TrajectoryView::TrajectoryView(QWidget* parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_arriving(new ArrivingReply(this))
    , m_timeline(new StepTimeline(this))
    , m_timelineScroll(new QScrollArea(this))
    , m_chart(new SpeedupChart(this))
    , m_stepView(new StepView(this))
{
    setObjectName(QStringLiteral("trajectoryView"));
    m_header->setObjectName(QStringLiteral("trajectoryHeader"));
    m_header->setTextFormat(Qt::PlainText);  // titles and errors are shown as written
    m_header->setWordWrap(true);             // a long error wraps; it must not widen the window
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_timeline->setObjectName(QStringLiteral("stepTimeline"));
    m_chart->setObjectName(QStringLiteral("speedupChart"));
    auto* top = new QSplitter(Qt::Horizontal, this);
    m_timelineScroll->setWidget(m_timeline);
    m_timelineScroll->setWidgetResizable(true);
    m_timelineScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_timelineScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_timelineScroll->setMinimumHeight(m_timeline->minimumSizeHint().height() + 20);
    top->addWidget(m_timelineScroll);
    top->addWidget(m_chart);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->setSizes({560, 440});  // the chart readable from the first show (its size hint is small)
    m_chart->setMinimumSize(260, 170);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_stepView);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({240, 660});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_header);
    layout->addWidget(m_arriving);
    layout->addWidget(split, 1);

    addKeyAction(QStringLiteral("nextStep"), tr("&Next step"), {Qt::Key_Right, Qt::Key_J}, &TrajectoryView::nextStep);
    addKeyAction(QStringLiteral("previousStep"), tr("&Previous step"), {Qt::Key_Left, Qt::Key_K},
                 &TrajectoryView::previousStep);
    addKeyAction(QStringLiteral("firstStep"), tr("&First step"), {Qt::Key_Home}, &TrajectoryView::firstStep);
    addKeyAction(QStringLiteral("lastStep"), tr("&Last step"), {Qt::Key_End}, &TrajectoryView::lastStep);
    addKeyAction(QStringLiteral("toggleDiffMode"), tr("Toggle &diff mode (side by side, unified)"), {Qt::Key_D},
                 &TrajectoryView::toggleDiffMode);
    addKeyAction(QStringLiteral("chooseComparedStep"), tr("&Compare with step..."), {Qt::Key_C},
                 &TrajectoryView::chooseComparedStep);
    addKeyAction(QStringLiteral("copyLink"), tr("Copy &link to this step"),
                 {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)}, &TrajectoryView::copyLink);

    connect(m_timeline, &StepTimeline::stepClicked, this, &TrajectoryView::goToStep);
    connect(m_chart, &SpeedupChart::stepClicked, this, &TrajectoryView::goToStep);
    refreshHeader();
}

QAction* TrajectoryView::addKeyAction(const QString& name, const QString& text, const QList<QKeySequence>& keys,
                                      void (TrajectoryView::*slot)())
{
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    a->setShortcuts(keys);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
    m_actions << a;
    return a;
}

QAction* TrajectoryView::action(const QString& objectName) const
{
    for (QAction* a : m_actions)
        if (a->objectName() == objectName)
            return a;
    return nullptr;
}

void TrajectoryView::setRun(const RunSummary& run, const QList<StepSummary>& steps)
{
    const bool sameRun = run.id == m_run.id;
    m_run = run;
    m_steps = steps;
    if (!sameRun || positionOf(m_currentIdx) < 0) {
        m_currentIdx = -1;
        if (!sameRun)
            m_stepView->clear();
    }
    bool comparedExists = false;
    for (const StepSummary& s : steps)
        comparedExists = comparedExists || s.id == m_comparedStepId;
    if (!sameRun || !comparedExists) {
        m_comparedStepId = 0;
        m_haveComparedCode = false;
    }
    m_timeline->setSteps(steps);
    m_timeline->setCurrentIdx(m_currentIdx);
    m_chart->setSteps(steps);
    m_chart->setCurrentIdx(m_currentIdx);
    if (!sameRun || m_arriving->stepIdx() < int(steps.size()) || run.state != RunState::Running)
        m_arriving->clear();  // another run, the step arrived with its whole reply, or the run ended without it
    refreshHeader();
}

void TrajectoryView::showArrivingReply(int stepIdx, const QString& textSoFar)
{
    if (m_run.id == 0 || stepIdx < int(m_steps.size()) || m_run.state != RunState::Running)
        return;  // a late chunk of a step already recorded, or of a run that ended
    m_arriving->setText(stepIdx, textSoFar);
}

void TrajectoryView::setStep(const StepDetail& detail)
{
    if (detail.step.runId != m_run.id)
        return;  // an answer for a run no longer shown
    m_currentIdx = detail.step.idx;
    if (m_comparedStepId != 0 && m_haveComparedCode)
        m_stepView->setStep(detail, std::pair{stepLabel(m_comparedStepId), m_comparedCode});
    else
        m_stepView->setStep(detail);
    m_timeline->setCurrentIdx(m_currentIdx);
    m_chart->setCurrentIdx(m_currentIdx);
    refreshHeader();
}

void TrajectoryView::setComparedCode(qint64 stepId, const QString& code)
{
    if (stepId != m_comparedStepId || stepId == 0)
        return;  // the user picked another since
    m_comparedCode = code;
    m_haveComparedCode = true;
    applyDiffBase();
}

void TrajectoryView::applyDiffBase()
{
    if (!m_stepView->hasStep())
        return;
    if (m_comparedStepId != 0 && m_haveComparedCode)
        m_stepView->setDiffBase(stepLabel(m_comparedStepId), m_comparedCode);
    else
        m_stepView->resetDiffBase();
}

QString TrajectoryView::stepLabel(qint64 stepId) const
{
    for (const StepSummary& s : m_steps)
        if (s.id == stepId)
            return tr("step %1").arg(s.idx + 1);
    return tr("step ?");
}

int TrajectoryView::positionOf(int idx) const
{
    for (int pos = 0; pos < m_steps.size(); ++pos)
        if (m_steps[pos].idx == idx)
            return pos;
    return -1;
}

void TrajectoryView::goToStep(int idx)
{
    if (positionOf(idx) < 0)
        return;
    m_currentIdx = idx;
    m_timeline->setCurrentIdx(idx);
    m_chart->setCurrentIdx(idx);
    const QRect mark = m_timeline->markRect(positionOf(idx));
    m_timelineScroll->ensureVisible(mark.center().x(), mark.center().y(), 40, 0);
    Q_EMIT stepRequested(idx);
}

void TrajectoryView::nextStep()
{
    const int pos = positionOf(m_currentIdx);
    if (!m_steps.isEmpty())
        goToStep(m_steps[qMin(pos + 1, int(m_steps.size()) - 1)].idx);
}

void TrajectoryView::previousStep()
{
    const int pos = positionOf(m_currentIdx);
    if (!m_steps.isEmpty())
        goToStep(m_steps[qMax(pos - 1, 0)].idx);
}

void TrajectoryView::firstStep()
{
    if (!m_steps.isEmpty())
        goToStep(m_steps.constFirst().idx);
}

void TrajectoryView::lastStep()
{
    if (!m_steps.isEmpty())
        goToStep(m_steps.constLast().idx);
}

void TrajectoryView::toggleDiffMode()
{
    m_stepView->diffView()->toggleMode();
}

void TrajectoryView::chooseComparedStep()
{
    auto* chooser = new StepChooser(m_steps, m_comparedStepId, this);
    chooser->setAttribute(Qt::WA_DeleteOnClose);
    connect(chooser, &StepChooser::chosen, this, &TrajectoryView::compareWith);
    chooser->open();
}

void TrajectoryView::compareWith(qint64 stepId)
{
    m_comparedStepId = stepId;
    m_haveComparedCode = false;
    m_comparedCode.clear();
    if (stepId != 0)
        Q_EMIT comparedStepRequested(stepId);
    applyDiffBase();
    m_stepView->setCurrentIndex(StepView::DiffTab);
}

QString TrajectoryView::linkText() const
{
    if (m_run.id == 0)
        return {};
    QString link = QStringLiteral("run/%1").arg(m_run.id);
    if (m_currentIdx >= 0)
        link += QStringLiteral("/step/%1").arg(m_currentIdx + 1);  // counted from 1, as every view shows steps
    return QStringLiteral("kmosaic-workbench --open ") + link;
}

void TrajectoryView::copyLink()
{
    if (QClipboard* c = QGuiApplication::clipboard(); c && !linkText().isEmpty())
        c->setText(linkText());
}

void TrajectoryView::refreshHeader()
{
    if (m_run.id == 0) {
        m_header->setText(tr("No run open."));
        return;
    }
    QString text =
        tr("Run %1 · %2 (%3) · %4 · %5 · %6 · best %7 %8")
            .arg(m_run.id)
            .arg(m_run.taskId, m_run.taskTitle, m_run.replySource, toString(m_run.state), stepCountText(m_run.steps),
                 m_run.bestStatus.isEmpty() ? tr("none") : m_run.bestStatus, speedupText(m_run.bestSpeedup));
    if (m_run.forkedFrom > 0)
        text += tr(" · forked from run %1 after step %2").arg(m_run.forkedFrom).arg(m_run.forkedSteps);
    if (!m_run.error.isEmpty())
        text += QLatin1Char('\n') + tr("Failed: %1").arg(plainRunError(m_run.error));
    m_header->setText(text);
}

}  // namespace km::replay
