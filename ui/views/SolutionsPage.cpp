#include "views/SolutionsPage.h"

#include "replay/CompareView.h"
#include "services/SolutionReviewService.h"
#include "solutions/OverrideDialog.h"
#include "solutions/SolutionsController.h"
#include "solutions/SolutionsView.h"
#include "store/StoreWorker.h"

#include <QAction>
#include <QLabel>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace km::ui {

namespace {
Result<replay::CompareSolution> readSide(TaskStore& s, qint64 id)
{
    auto d = SolutionReviewService(s.database()).detail(id);
    if (!d)
        return d.error();
    replay::CompareSolution c;
    c.id = id;
    c.taskId = d->solution.taskId;
    c.code = d->solution.code;
    if (!d->verdicts.isEmpty()) {
        c.status = toString(d->verdicts.first().status);
        c.speedup = d->verdicts.first().speedup;
    }
    return c;
}
}  // namespace

SolutionsPage::SolutionsPage(StoreWorker& store, ServiceHost* services, const QString& reviewer, QSettings& settings,
                             QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_controller(new SolutionsController(store, services, reviewer, this))
    , m_view(new SolutionsView(*m_controller, settings, this))
    , m_compare(new replay::CompareView(this))
    , m_stack(new QStackedWidget(this))
    , m_marked(new QLabel(this))
{
    setObjectName(QStringLiteral("solutionsPage"));
    m_marked->setObjectName(QStringLiteral("solutionMarked"));
    m_marked->hide();
    auto* comparePage = new QWidget(this);
    auto* back = new QToolButton(comparePage);
    auto* compareLayout = new QVBoxLayout(comparePage);
    compareLayout->setContentsMargins(0, 0, 0, 0);
    compareLayout->addWidget(back, 0, Qt::AlignLeft);
    compareLayout->addWidget(m_compare, 1);
    auto* reviewPage = new QWidget(this);
    auto* reviewLayout = new QVBoxLayout(reviewPage);
    reviewLayout->setContentsMargins(0, 0, 0, 0);
    reviewLayout->addWidget(m_view, 1);
    reviewLayout->addWidget(m_marked);
    m_stack->addWidget(reviewPage);
    m_stack->addWidget(comparePage);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);

    for (int i = 0; i < kReviewActionCount; ++i)
        if (QAction* a = m_view->action(ReviewAction(i)))
            m_actions.append(a);
    connect(addPageAction(this, QStringLiteral("markSolution"), tr("Mark Solution for Comparison"),
                          QKeySequence(Qt::Key_M)),
            &QAction::triggered, this, &SolutionsPage::markForCompare);
    connect(addPageAction(this, QStringLiteral("compareSolutions"), tr("Compare with Marked Solution"),
                          QKeySequence(Qt::SHIFT | Qt::Key_M)),
            &QAction::triggered, this, &SolutionsPage::compareWithMarked);
    // Esc leaves the comparison; only there (in the review, Esc leaves the comment field).
    QAction* backAction =
        addPageAction(comparePage, QStringLiteral("backToReview"), tr("Back to Review"), QKeySequence(Qt::Key_Escape));
    back->setDefaultAction(backAction);
    connect(backAction, &QAction::triggered, this, &SolutionsPage::backToReview);
    connect(m_controller, &SolutionsController::failed, this, &SolutionsPage::message);
    m_controller->reload();
}

QAction* SolutionsPage::addPageAction(QWidget* on, const QString& name, const QString& text, const QKeySequence& key)
{
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    on->addAction(a);
    m_actions.append(a);
    return a;
}

bool SolutionsPage::comparing() const
{
    return m_stack->currentIndex() == 1;
}

std::optional<DeepLink> SolutionsPage::currentLink() const
{
    const qint64 id = m_view->currentSolutionId();
    return id == 0 ? std::nullopt : std::optional<DeepLink>(DeepLink::toSolution(id));
}

void SolutionsPage::openSolution(qint64 id)
{
    backToReview();
    m_view->selectSolution(id);
}

void SolutionsPage::setTaskFilter(const QString& taskId)
{
    m_controller->setTaskFilter(taskId);
}

void SolutionsPage::markForCompare()
{
    const qint64 id = m_view->currentSolutionId();
    if (id == 0)
        return;
    m_markedId = id;
    m_marked->setText(tr("Solution %1 is marked: go to another solution of its task and press Shift+M").arg(id));
    m_marked->show();
    Q_EMIT message(tr("Solution %1 marked for comparison").arg(id));
}

void SolutionsPage::compareWithMarked()
{
    const qint64 current = m_view->currentSolutionId();
    if (m_markedId == 0 || current == 0 || current == m_markedId) {
        Q_EMIT message(tr("Mark a solution with M, then go to another solution of its task and press Shift+M"));
        return;
    }
    using Pair = std::pair<replay::CompareSolution, replay::CompareSolution>;
    m_store.submit<Pair>(
        QStringLiteral("compare-solutions"),
        [a = m_markedId, b = current](TaskStore& s) -> Result<Pair> {
            auto first = readSide(s, a);
            if (!first)
                return first.error();
            auto second = readSide(s, b);
            if (!second)
                return second.error();
            if (first->taskId != second->taskId)
                return makeError(ErrorCode::InvalidInput,
                                 QStringLiteral("solution %1 is for task %2 and solution %3 for task %4: compare two "
                                                "solutions of one task")
                                     .arg(a)
                                     .arg(first->taskId)
                                     .arg(b)
                                     .arg(second->taskId));
            return Pair{std::move(first).value(), std::move(second).value()};
        },
        this,
        [this](Result<Pair> pair) {
            if (!pair)
                return Q_EMIT message(tr("Cannot compare: %1").arg(pair.error().message));
            m_compare->setSolutions(pair->first, pair->second);
            m_stack->setCurrentIndex(1);
            m_compare->setFocus();
        });
}

void SolutionsPage::backToReview()
{
    m_stack->setCurrentIndex(0);
}

}  // namespace km::ui
