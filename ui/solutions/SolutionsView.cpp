// The solution review view (SolutionsView.h).
#include "solutions/SolutionsView.h"

#include "review/TypingGuard.h"
#include "solutions/OverrideDialog.h"
#include "solutions/SolutionDetailPane.h"
#include "solutions/SolutionFilterBar.h"
#include "solutions/SolutionReasons.h"
#include "solutions/SolutionTableModel.h"
#include "solutions/SolutionsController.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace km::ui {

namespace {
const QList<ReviewAction> kViewActions{ReviewAction::Accept, ReviewAction::Reject, ReviewAction::NeedsChanges,
                                       ReviewAction::Skip,   ReviewAction::Undo,   ReviewAction::Comment};
}  // namespace

SolutionsView::SolutionsView(SolutionsController& controller, QSettings& settings, QWidget* parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_reasons(loadSolutionReasonCodes(settings))
    , m_model(new SolutionTableModel(this))
    , m_proxy(new SolutionFilterProxy(this))
{
    setObjectName(QStringLiteral("solutionsView"));
    m_shortcuts.load(settings);  // the task review's keys: one set of keys to learn
    m_proxy->setSourceModel(m_model);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(buildQueue());
    auto* right = new QSplitter(Qt::Vertical, split);
    m_detail = new SolutionDetailPane(right);
    right->addWidget(m_detail);
    right->addWidget(buildDecisionPanel());
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    createActions();
    m_guard = new TypingGuard([this](QKeyCombination k) { return isReviewKey(k); }, m_comment, this);
    m_guard->watchWindowOf(this);

    connect(&m_controller, &SolutionsController::solutionsChanged, this, &SolutionsView::onSolutionsChanged);
    connect(&m_controller, &SolutionsController::detailLoaded, this, &SolutionsView::onDetailLoaded);
    connect(&m_controller, &SolutionsController::failed, this, [this](const QString& m) { showMessage(m, true); });
    connect(&m_controller, &SolutionsController::taskFilterChanged, this, [this](const QString& task) {
        SolutionViewFilter f = m_proxy->filter();
        f.taskId = task;
        m_proxy->setFilter(f);
        updateCount();
    });
    connect(&m_controller, &SolutionsController::decided, this, [this](const ReviewRecord& r) {
        showMessage(tr("solution %1: %2 → %3%4")
                        .arg(r.solutionId)
                        .arg(toString(r.from), toString(r.to),
                             r.isOverride() ? tr(" (override: %1)").arg(r.overriddenRules.join(QStringLiteral(", ")))
                                            : QString()),
                    false);
        if (r.reason == QLatin1String("undo"))
            return selectSolution(r.solutionId);
        m_comment->clear();
        toggleReason(-1);
        if (r.solutionId == currentSolutionId())
            moveToNext();
    });
    connect(&m_controller, &SolutionsController::fixSaved, this, [this](qint64 id) {
        m_detail->setEditing(false);
        m_fix->setChecked(false);
        m_wantId = id;
        m_controller.selectSolution(id);
        m_controller.reverify(id);
    });
    connect(&m_controller, &SolutionsController::verifyProgress, this, [this](qint64 id, const QString& phase) {
        m_progress->show();
        m_progressText->setText(tr("verifying solution %1: %2").arg(id).arg(phase));
        m_cancelVerify->setEnabled(true);
        m_reverify->setEnabled(false);
    });
    connect(&m_controller, &SolutionsController::verifyFinished, this,
            [this](qint64 id, bool ok, const QString& message) {
                m_progress->hide();
                m_cancelVerify->setEnabled(false);
                m_reverify->setEnabled(true);
                m_progressText->setText(tr("solution %1: %2").arg(id).arg(message));
                if (!ok)
                    showMessage(tr("re-verify of solution %1: %2").arg(id).arg(message), true);
            });
    onSolutionsChanged();
}

QWidget* SolutionsView::buildQueue()
{
    auto* box = new QWidget(this);
    auto* v = new QVBoxLayout(box);
    m_filters = new SolutionFilterBar(box);
    v->addWidget(m_filters);
    m_table = new QTableView(box);
    m_table->setObjectName(QStringLiteral("solutionTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SolutionTableModel::Id, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultSectionSize(84);
    m_table->setWordWrap(false);
    m_table->setColumnWidth(SolutionTableModel::Id, 48);
    for (int c : {SolutionTableModel::Task, SolutionTableModel::Gpu, SolutionTableModel::Created})
        m_table->setColumnWidth(c, 116);
    m_table->setColumnWidth(SolutionTableModel::Verdict, 150);
    v->addWidget(m_table);
    m_count = new QLabel(box);
    m_count->setObjectName(QStringLiteral("solutionCount"));
    v->addWidget(m_count);

    connect(m_filters, &SolutionFilterBar::changed, this, [this] { setFilter(m_filters->apply(m_proxy->filter())); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const qint64 id = current.data(SolutionTableModel::SolutionIdRole).toLongLong();
                if (id != m_controller.currentId())
                    m_controller.selectSolution(id);
            });
    return box;
}

QWidget* SolutionsView::buildDecisionPanel()
{
    auto* box = new QWidget(this);
    auto* v = new QVBoxLayout(box);
    m_gate = new QLabel(box);
    m_gate->setObjectName(QStringLiteral("solutionGate"));
    m_gate->setWordWrap(true);
    v->addWidget(m_gate);
    auto* decisions = new QHBoxLayout;
    for (ReviewAction a : kViewActions) {
        if (a == ReviewAction::Comment)
            continue;
        auto* b = new QPushButton(shortcutInfo(a).text, box);
        b->setObjectName(shortcutInfo(a).id + QStringLiteral("Button"));
        connect(b, &QPushButton::clicked, this, [this, a] { trigger(a); });
        decisions->addWidget(b);
    }
    v->addLayout(decisions);
    m_reasonList = new QListWidget(box);
    m_reasonList->setObjectName(QStringLiteral("solutionReasons"));
    for (int i = 0; i < m_reasons.size(); ++i)
        m_reasonList->addItem(QStringLiteral("%1  %2").arg(i + 1).arg(displayText(m_reasons[i])));
    m_reasonList->setMaximumHeight(m_reasonList->sizeHintForRow(0) * int(m_reasons.size() + 1));
    connect(m_reasonList, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { toggleReason(m_reasonList->row(item)); });
    v->addWidget(m_reasonList);
    m_comment = new QPlainTextEdit(box);
    m_comment->setObjectName(QStringLiteral("solutionComment"));
    m_comment->setPlaceholderText(tr("Comment (E; Esc leaves)"));
    m_comment->setMaximumHeight(80);
    v->addWidget(m_comment);
    auto* fixRow = new QHBoxLayout;
    m_fix = new QPushButton(tr("Fix…"), box);
    m_fix->setObjectName(QStringLiteral("fixButton"));
    m_fix->setCheckable(true);
    m_fix->setToolTip(tr("Edit the code; Save stores it as a new solution linked to this one and verifies it"));
    m_saveFix = new QPushButton(tr("Save fix and verify"), box);
    m_saveFix->setObjectName(QStringLiteral("saveFixButton"));
    m_saveFix->setEnabled(false);
    m_reverify = new QPushButton(tr("Re-verify"), box);
    m_reverify->setObjectName(QStringLiteral("reverifyButton"));
    m_cancelVerify = new QPushButton(tr("Cancel"), box);
    m_cancelVerify->setObjectName(QStringLiteral("cancelVerifyButton"));
    m_cancelVerify->setEnabled(false);
    for (QPushButton* b : {m_fix, m_saveFix, m_reverify, m_cancelVerify})
        fixRow->addWidget(b);
    v->addLayout(fixRow);
    m_progress = new QProgressBar(box);
    m_progress->setRange(0, 0);
    m_progress->hide();
    v->addWidget(m_progress);
    m_progressText = new QLabel(box);
    m_progressText->setObjectName(QStringLiteral("verifyProgress"));
    v->addWidget(m_progressText);
    m_message = new QLabel(box);
    m_message->setObjectName(QStringLiteral("solutionMessage"));
    m_message->setWordWrap(true);
    v->addWidget(m_message);
    v->addStretch();

    connect(m_fix, &QPushButton::toggled, this, [this](bool on) {
        m_detail->setEditing(on);
        m_saveFix->setEnabled(on);
    });
    connect(m_saveFix, &QPushButton::clicked, this, &SolutionsView::saveFix);
    connect(m_reverify, &QPushButton::clicked, this, [this] {
        if (const qint64 id = currentSolutionId())
            m_controller.reverify(id);
    });
    connect(m_cancelVerify, &QPushButton::clicked, &m_controller, &SolutionsController::cancelVerify);
    return box;
}

void SolutionsView::createActions()
{
    m_actions.fill(nullptr, kReviewActionCount);
    QList<ReviewAction> all = kViewActions;
    for (int i = 0; i < kMaxReasonCodes && i < m_reasons.size(); ++i)
        all.append(ReviewAction(int(ReviewAction::Reason1) + i));
    for (ReviewAction a : all) {
        const ShortcutInfo& info = shortcutInfo(a);
        auto* act = new QAction(info.text, this);
        act->setObjectName(QStringLiteral("solution-") + info.id);
        act->setToolTip(info.description);
        act->setShortcut(m_shortcuts.key(a));
        // Only while the solution review has focus: the task review has the same keys.
        act->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(act, &QAction::triggered, this, [this, a] { trigger(a); });
        addAction(act);
        m_actions[int(a)] = act;
    }
    auto* leave = new QAction(this);
    leave->setShortcut(QKeySequence(Qt::Key_Escape));
    leave->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(leave, &QAction::triggered, this, [this] {
        if (m_comment->hasFocus())
            m_table->setFocus();
    });
    addAction(leave);
}

QAction* SolutionsView::action(ReviewAction a) const
{
    return m_actions.value(int(a));
}

bool SolutionsView::isReviewKey(QKeyCombination key) const
{
    return m_shortcuts.actionFor(QKeySequence(key)).has_value();
}

void SolutionsView::trigger(ReviewAction a)
{
    if (const auto r = reasonIndex(a))
        return toggleReason(*r == m_reason ? -1 : *r);
    switch (a) {
    case ReviewAction::Accept: return decide(ReviewStatus::Accepted);
    case ReviewAction::Reject: return decide(ReviewStatus::Rejected);
    case ReviewAction::NeedsChanges: return decide(ReviewStatus::NeedsChanges);
    case ReviewAction::Skip: return moveToNext();
    case ReviewAction::Undo:
        if (!m_controller.undo())
            showMessage(tr("nothing to undo in this session"), true);
        return;
    case ReviewAction::Comment: m_comment->setFocus(); return;
    default: return;
    }
}

void SolutionsView::decide(ReviewStatus to)
{
    const qint64 id = currentSolutionId();
    if (!id)
        return showMessage(tr("select a solution first"), true);
    const QString reason = m_reason >= 0 ? m_reasons[m_reason].code : QString();
    const QString comment = m_comment->toPlainText().trimmed();
    QList<GateRule> unmet;
    if (m_controller.current() && m_controller.current()->solution.id == id)
        unmet = m_controller.current()->unmetGate;
    else if (const SolutionListing* l = m_model->listing(m_model->rowOf(id)))
        unmet = l->unmetGate;
    if (to != ReviewStatus::Accepted || unmet.isEmpty())
        return m_controller.decide(id, to, reason, comment);
    if (m_override)
        return;
    m_override = new OverrideDialog(id, unmet, this);
    m_override->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_override, &QDialog::accepted, this, [this, id, reason, comment] {
        const QString why = m_override->reason();
        m_controller.decide(id, ReviewStatus::Accepted, reason,
                            comment.isEmpty() ? why : comment + QStringLiteral("\n") + why, true);
    });
    m_override->open();
}

void SolutionsView::toggleReason(int index)
{
    m_reason = index;
    for (int i = 0; i < m_reasonList->count(); ++i) {
        QFont f = m_reasonList->item(i)->font();
        f.setBold(i == index);
        m_reasonList->item(i)->setFont(f);
    }
    m_reasonList->setCurrentRow(index);
}

void SolutionsView::moveToNext()
{
    const int row = m_table->currentIndex().row();
    if (row + 1 < m_proxy->rowCount())
        m_table->setCurrentIndex(m_proxy->index(row + 1, 0));
    else
        showMessage(tr("the end of the queue"), false);
}

void SolutionsView::selectSolution(qint64 id)
{
    const int row = m_model->rowOf(id);
    if (row < 0) {
        m_wantId = id;
        m_controller.selectSolution(id);
        return;
    }
    const QModelIndex at = m_proxy->mapFromSource(m_model->index(row, 0));
    if (at.isValid())
        m_table->setCurrentIndex(at);
    else
        m_controller.selectSolution(id);
}

qint64 SolutionsView::currentSolutionId() const
{
    return m_controller.currentId();
}

void SolutionsView::setFilter(const SolutionViewFilter& f)
{
    m_proxy->setFilter(f);
    updateCount();
}

void SolutionsView::onSolutionsChanged()
{
    const qint64 keep = m_wantId ? m_wantId : m_controller.currentId();
    m_model->setSolutions(m_controller.solutions());
    if (keep && m_model->rowOf(keep) >= 0) {
        m_wantId = 0;
        selectSolution(keep);
    } else if (!m_table->currentIndex().isValid() && m_proxy->rowCount() > 0) {
        m_table->setCurrentIndex(m_proxy->index(0, 0));
    }
    updateCount();
}

void SolutionsView::onDetailLoaded()
{
    const auto& d = m_controller.current();
    m_detail->showDetail(d);
    if (!d) {
        m_gate->setText(tr("No solution selected."));
        return;
    }
    m_gate->setText(
        d->unmetGate.isEmpty()
            ? tr("Gate: met. Solution %1 can be accepted.").arg(d->solution.id)
            : tr("Gate: not met (accepting needs an override with a reason): %1").arg(describeGateRules(d->unmetGate)));
}

void SolutionsView::updateCount()
{
    const auto [shown, all] = m_proxy->counts();
    m_count->setText(tr("%1 of %2 solutions").arg(shown).arg(all));
}

void SolutionsView::showMessage(const QString& text, bool isError)
{
    m_message->setText(text);
    m_message->setStyleSheet(isError ? QStringLiteral("color: #b00020") : QString());
}

void SolutionsView::saveFix()
{
    const qint64 id = currentSolutionId();
    if (!id || !m_detail->codeChanged())
        return showMessage(tr("change the code first: the fix is stored as a new solution"), true);
    m_controller.saveFix(id, m_detail->code());
}

}  // namespace km::ui
