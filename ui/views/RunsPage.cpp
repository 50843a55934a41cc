#include "views/RunsPage.h"

#include "controller/ReplayController.h"
#include "replay/CompareView.h"
#include "replay/TrajectoryView.h"
#include "store/StoreWorker.h"
#include "store/TrajectoryStore.h"
#include "views/RunsView.h"

#include <QAction>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace km::ui {

namespace {
// One side of a comparison as read: the run, its steps and the code of its last step with code.
struct ComparedRun {
    RunSummary run;
    QList<StepSummary> steps;
    QString finalCode;
};

Result<ComparedRun> readCompared(TaskStore& s, qint64 runId)
{
    auto opened = runWithSteps(s.database(), runId);
    if (!opened)
        return opened.error();
    ComparedRun c{std::move(opened->run), std::move(opened->steps), {}};
    for (auto it = c.steps.crbegin(); it != c.steps.crend(); ++it) {
        if (it->solutionId == 0)
            continue;
        auto code = stepCode(s.database(), it->id);
        if (!code)
            return code.error();
        c.finalCode = std::move(code).value();
        break;
    }
    return c;
}
}  // namespace

RunsPage::RunsPage(StoreWorker& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_controller(new ReplayController(store, this))
    , m_runs(new RunsView(this))
    , m_trajectory(new replay::TrajectoryView(this))
    , m_compare(new replay::CompareView(this))
    , m_right(new QStackedWidget(this))
    , m_marked(new QLabel(this))
{
    setObjectName(QStringLiteral("runsPage"));
    m_marked->setObjectName(QStringLiteral("compareMarked"));
    m_marked->hide();
    auto* back = new QToolButton(this);
    back->setObjectName(QStringLiteral("backToReplay"));
    auto* comparePage = new QWidget(this);
    auto* compareLayout = new QVBoxLayout(comparePage);
    compareLayout->setContentsMargins(0, 0, 0, 0);
    compareLayout->addWidget(back, 0, Qt::AlignLeft);
    compareLayout->addWidget(m_compare, 1);
    m_right->addWidget(m_trajectory);
    m_right->addWidget(comparePage);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_runs, 1);
    leftLayout->addWidget(m_marked);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("runsSplitter"));
    split->addWidget(left);
    split->addWidget(m_right);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    // The replay's keys work from the runs list too: the actions are this page's as well as the view's.
    for (QAction* a : m_trajectory->actions()) {
        addAction(a);
        m_actions.append(a);
    }
    connect(addPageAction(QStringLiteral("nextRun"), tr("Next Run"), {QKeySequence(Qt::Key_BracketRight)}),
            &QAction::triggered, m_runs, &RunsView::nextRun);
    connect(addPageAction(QStringLiteral("previousRun"), tr("Previous Run"), {QKeySequence(Qt::Key_BracketLeft)}),
            &QAction::triggered, m_runs, &RunsView::previousRun);
    connect(addPageAction(QStringLiteral("markForCompare"), tr("Mark Run for Comparison"), {QKeySequence(Qt::Key_M)}),
            &QAction::triggered, this, &RunsPage::markForCompare);
    connect(addPageAction(QStringLiteral("compareWithMarked"), tr("Compare with Marked Run"),
                          {QKeySequence(Qt::SHIFT | Qt::Key_M)}),
            &QAction::triggered, this, &RunsPage::compareWithMarked);
    QAction* backAction =
        addPageAction(QStringLiteral("backToReplay"), tr("Back to Replay"), {QKeySequence(Qt::Key_Escape)});
    back->setDefaultAction(backAction);
    connect(backAction, &QAction::triggered, this, &RunsPage::backToReplay);

    ReplayController* c = m_controller;
    connect(c, &ReplayController::runsChanged, this, [this] {
        m_runs->setRuns(m_controller->runs());
        m_rereadAnswered = m_pendingReread;
        applyPendingOpen();
    });
    connect(m_runs, &RunsView::currentRunChanged, this, [this](qint64 id) {
        if (id != 0 && !m_pendingOpen)
            m_controller->openRun(id);
    });
    connect(m_runs, &RunsView::runActivated, this, [this] { m_trajectory->setFocus(); });
    connect(c, &ReplayController::runOpened, this, [this] {
        if (m_controller->currentRun())
            m_trajectory->setRun(*m_controller->currentRun(), m_controller->steps());
    });
    connect(m_trajectory, &replay::TrajectoryView::stepRequested, c, &ReplayController::selectStep);
    connect(c, &ReplayController::stepLoaded, this, [this] {
        if (m_controller->currentStep())
            m_trajectory->setStep(*m_controller->currentStep());
    });
    connect(m_trajectory, &replay::TrajectoryView::comparedStepRequested, c, &ReplayController::requestStepCode);
    connect(c, &ReplayController::comparedCodeLoaded, m_trajectory, &replay::TrajectoryView::setComparedCode);
    connect(c, &ReplayController::failed, this, &RunsPage::message);
    refresh();
}

void RunsPage::refresh()
{
    m_store.write<QList<qint64>>(
        [](TaskStore& s) { return TrajectoryStore(s.database()).markDeadRunsInterrupted(); }, this,
        [this](Result<QList<qint64>> marked) {
            if (!marked)
                Q_EMIT message(tr("Cannot check for interrupted runs: %1").arg(marked.error().message));
            m_controller->reload();  // the worker's own write moves no data_version
        });
}

QAction* RunsPage::addPageAction(const QString& name, const QString& text, const QList<QKeySequence>& keys)
{
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    a->setShortcuts(keys);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(a);
    m_actions.append(a);
    return a;
}

QAction* RunsPage::action(const QString& objectName) const
{
    for (QAction* a : m_actions)
        if (a->objectName() == objectName)
            return a;
    return nullptr;
}

bool RunsPage::comparing() const
{
    return m_right->currentIndex() == 1;
}

std::optional<DeepLink> RunsPage::currentLink() const
{
    const auto& run = m_controller->currentRun();
    if (!run)
        return std::nullopt;
    const int idx = m_trajectory->currentIdx();
    return DeepLink::toRun(run->id, idx >= 0 ? std::optional<int>(idx) : std::nullopt);
}

void RunsPage::openRun(qint64 runId, std::optional<int> stepIdx)
{
    m_pendingOpen = std::make_pair(runId, stepIdx);
    m_pendingReread = false;
    m_rereadAnswered = false;
    backToReplay();
    applyPendingOpen();
}

void RunsPage::applyPendingOpen()
{
    if (!m_pendingOpen)
        return;
    const auto [runId, stepIdx] = *m_pendingOpen;
    const bool listed = std::any_of(m_controller->runs().begin(), m_controller->runs().end(),
                                    [id = runId](const RunSummary& r) { return r.id == id; });
    if (!listed) {
        // The list may be older than the run (one just started): read it again once before saying there is none.
        if (!m_pendingReread) {
            m_pendingReread = true;
            m_controller->reload();
        } else if (!m_controller->runs().isEmpty() || m_rereadAnswered) {
            m_pendingOpen.reset();
            Q_EMIT message(tr("No run %1 in this store").arg(runId));
        }
        return;
    }
    m_runs->selectRun(runId);
    m_pendingOpen.reset();
    m_controller->openRun(runId, stepIdx.value_or(-1));
}

void RunsPage::setTaskFilter(const QString& taskId)
{
    m_runs->setTaskFilter(taskId);
}

void RunsPage::markForCompare()
{
    const qint64 id = m_runs->currentRunId();
    if (id == 0)
        return;
    m_markedRun = id;
    m_marked->setText(tr("Run %1 is marked: go to another run and press Shift+M to compare them").arg(id));
    m_marked->show();
    Q_EMIT message(tr("Run %1 marked for comparison").arg(id));
}

void RunsPage::compareWithMarked()
{
    const qint64 current = m_runs->currentRunId();
    if (m_markedRun == 0 || current == 0 || current == m_markedRun) {
        Q_EMIT message(tr("Mark a run with M, then go to another run and press Shift+M"));
        return;
    }
    loadComparison(m_markedRun, current);
}

void RunsPage::loadComparison(qint64 a, qint64 b)
{
    using Pair = std::pair<ComparedRun, ComparedRun>;
    m_store.submit<Pair>(
        QStringLiteral("compare-runs"),
        [a, b](TaskStore& s) -> Result<Pair> {
            auto first = readCompared(s, a);
            if (!first)
                return first.error();
            auto second = readCompared(s, b);
            if (!second)
                return second.error();
            return Pair{std::move(first).value(), std::move(second).value()};
        },
        this,
        [this](Result<Pair> pair) {
            if (!pair)
                return Q_EMIT message(tr("Cannot compare: %1").arg(pair.error().message));
            const auto& [x, y] = pair.value();
            m_compare->setRuns(x.run, x.steps, x.finalCode, y.run, y.steps, y.finalCode);
            m_right->setCurrentIndex(1);
            m_compare->setFocus();
        });
}

void RunsPage::backToReplay()
{
    m_right->setCurrentIndex(0);
}

}  // namespace km::ui
