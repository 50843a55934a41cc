#include "review/ReviewPanel.h"

#include "review/DecisionList.h"
#include "review/ReviewSession.h"
#include "review/ShortcutDialog.h"
#include "review/ShortcutHelpDialog.h"
#include "review/TypingGuard.h"

#include <QAction>
#include <QApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QToolButton>
#include <QVBoxLayout>

namespace km::ui {

ReviewPanel::ReviewPanel(ReviewSession& session, QSettings& settings, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_settings(settings)
    , m_reasons(loadReasonCodes(settings))
    , m_task(new QLabel(this))
    , m_progress(new QLabel(this))
    , m_reasonList(new QListWidget(this))
    , m_comment(new QPlainTextEdit(this))
    , m_draft(new QLabel(this))
    , m_message(new QLabel(this))
    , m_recent(new DecisionList(this))
    , m_guard(new TypingGuard([this](QKeyCombination k) { return isReviewKey(k); }, m_comment, this))
{
    setObjectName(QStringLiteral("reviewPanel"));
    setFocusPolicy(Qt::ClickFocus);  // a click on the panel leaves the comment field
    const QStringList problems = m_shortcuts.load(settings);
    createActions();

    m_task->setObjectName(QStringLiteral("currentTaskLabel"));
    m_task->setWordWrap(true);
    m_task->setTextFormat(Qt::PlainText);
    m_task->setMinimumHeight(2 * m_task->fontMetrics().lineSpacing());  // "id — title [status]" wraps to two lines
    m_progress->setObjectName(QStringLiteral("progressLabel"));
    m_reasonList->setObjectName(QStringLiteral("reasonList"));
    m_reasonList->setFocusPolicy(Qt::NoFocus);  // digits choose reasons; the list never takes the keys
    m_comment->setObjectName(QStringLiteral("commentEdit"));
    m_comment->setTabChangesFocus(true);
    m_comment->setMaximumHeight(m_comment->fontMetrics().height() * 5);
    m_comment->setMinimumHeight(m_comment->fontMetrics().height() * 3);
    m_draft->setObjectName(QStringLiteral("draftLabel"));
    m_draft->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("messageLabel"));
    m_message->setWordWrap(true);

    // Buttons two by two, so the panel stays narrow enough to sit beside the task view at 1024 px.
    auto* decisions = new QGridLayout;
    int slot = 0;
    for (ReviewAction a : {ReviewAction::Accept, ReviewAction::Reject, ReviewAction::NeedsChanges, ReviewAction::Skip,
                           ReviewAction::Undo}) {
        auto* button = new QToolButton(this);
        button->setObjectName(shortcutInfo(a).id + QStringLiteral("Button"));
        button->setDefaultAction(action(a));
        button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        decisions->addWidget(button, slot / 2, slot % 2);
        ++slot;
    }
    auto* saveRow = new QHBoxLayout;
    saveRow->addWidget(m_draft, 1);
    auto* save = new QToolButton(this);
    save->setDefaultAction(action(ReviewAction::Save));
    saveRow->addWidget(save);
    auto* tools = new QHBoxLayout;
    auto* help = new QToolButton(this);
    help->setDefaultAction(action(ReviewAction::Help));
    auto* edit = new QPushButton(tr("Edit keys…"), this);
    edit->setFocusPolicy(Qt::NoFocus);
    connect(edit, &QPushButton::clicked, this, &ReviewPanel::editShortcuts);
    tools->addWidget(help);
    tools->addWidget(edit);
    tools->addStretch();

    // Two columns side by side: docked under the list the panel stays short, and its width makes the window take
    // room from the task view rather than squeeze the list below it.
    auto* decide = new QVBoxLayout;
    decide->addWidget(m_task);
    decide->addWidget(m_progress);
    decide->addLayout(decisions);
    decide->addWidget(new QLabel(tr("Reason"), this));
    decide->addWidget(m_reasonList);
    decide->addStretch(1);
    auto* notes = new QVBoxLayout;
    notes->addWidget(new QLabel(tr("Comment"), this));
    notes->addWidget(m_comment);
    notes->addLayout(saveRow);
    notes->addWidget(m_message);
    notes->addWidget(new QLabel(tr("Decisions of this session (Enter or click: go back)"), this));
    notes->addWidget(m_recent, 1);
    notes->addLayout(tools);
    auto* columns = new QHBoxLayout(this);
    columns->setContentsMargins(6, 4, 6, 4);
    columns->addLayout(decide, 1);
    columns->addLayout(notes, 1);
    m_recent->setMinimumHeight(m_recent->fontMetrics().height() * 3);

    connect(m_comment, &QPlainTextEdit::textChanged, this, [this] { m_session.setComment(m_comment->toPlainText()); });
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), m_comment);
    escape->setContext(Qt::WidgetShortcut);
    connect(escape, &QShortcut::activated, this, &ReviewPanel::leaveComment);
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget* old, QWidget* now) {
        if (now == m_comment && old && old != m_comment)
            m_returnFocus = old;
    });
    connect(m_reasonList, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { toggleReason(m_reasonList->row(item)); });
    connect(m_recent, &DecisionList::revisitRequested, this, [this](const QString& id) { m_session.revisit(id); });

    connect(&m_session, &ReviewSession::currentTaskChanged, this, [this] {
        if (m_comment->hasFocus())
            leaveComment();
        showCurrent();
    });
    connect(&m_session, &ReviewSession::draftChanged, this, &ReviewPanel::showDraft);
    connect(&m_session, &ReviewSession::historyChanged, this, &ReviewPanel::showHistory);
    connect(&m_session, &ReviewSession::error, this, [this](const QString& m) { showMessage(m, true); });
    connect(&m_session, &ReviewSession::decisionRecorded, this, [this](const ReviewRecord& r) {
        showMessage(tr("%1: %2 → %3%4")
                        .arg(r.taskId, statusText(r.from), statusText(r.to),
                             r.reason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(r.reason)),
                    false);
    });

    applyShortcuts();
    showCurrent();
    showDraft();
    showHistory();
    if (!problems.isEmpty())
        showMessage(tr("Review keys: %1").arg(problems.join(QStringLiteral("; "))), true);
}

ReviewPanel::~ReviewPanel()
{
    // Children die after this body: whatever they emit then must not reach a session that may be gone already.
    m_comment->disconnect(this);
    m_reasonList->disconnect(this);
    m_recent->disconnect(this);
    disconnect(qApp, nullptr, this, nullptr);
}

void ReviewPanel::createActions()
{
    m_menu = new QMenu(tr("&Review"), this);
    QMenu* reasonMenu = nullptr;
    for (const ShortcutInfo& info : shortcutCatalog()) {
        auto* act = new QAction(actionText(info.action, m_reasons), this);
        act->setObjectName(QStringLiteral("review-") + info.id);
        act->setShortcutContext(Qt::WindowShortcut);  // the curator's focus is usually in the task list
        act->setAutoRepeat(false);                    // a held key must not decide a run of tasks
        const ReviewAction a = info.action;
        connect(act, &QAction::triggered, this, [this, a] { trigger(a); });
        addAction(act);
        m_actions.append(act);
        if (reasonIndex(a)) {
            if (!reasonMenu)
                reasonMenu = m_menu->addMenu(tr("Reason"));
            reasonMenu->addAction(act);
        } else {
            m_menu->addAction(act);
            if (a == ReviewAction::ChooseAccept || a == ReviewAction::Skip || a == ReviewAction::Help)
                m_menu->insertSeparator(act);
        }
    }
    m_menu->addAction(tr("Edit review keys…"), this, &ReviewPanel::editShortcuts);
}

void ReviewPanel::applyShortcuts()
{
    for (const ShortcutInfo& info : shortcutCatalog()) {
        QAction* act = action(info.action);
        const QKeySequence key = m_shortcuts.key(info.action);
        QList<QKeySequence> keys;
        if (!key.isEmpty())
            keys.append(key);
        if (key.count() == 1 && key[0].key() == Qt::Key_Return)  // the keypad's Enter as well
            keys.append(QKeySequence(QKeyCombination(key[0].keyboardModifiers(), Qt::Key_Enter)));
        act->setShortcuts(keys);
        const QString text = act->text();
        act->setIconText(QStringLiteral("%1 [%2]").arg(text, keyText(key)));
        act->setToolTip(QStringLiteral("%1 [%2]\n%3").arg(text, keyText(key), info.description));
    }
    m_reasonList->clear();
    for (int i = 0; i < m_reasons.size(); ++i) {
        const QString key = keyText(m_shortcuts.key(ReviewAction(int(ReviewAction::Reason1) + i)));
        m_reasonList->addItem(QStringLiteral("%1   %2").arg(key, displayText(m_reasons.at(i))));
    }
    // Before the list is polished its row hint is a few pixels short: never less than a line of text and padding.
    const int row = std::max(m_reasonList->sizeHintForRow(0), m_reasonList->fontMetrics().height() + 4);
    m_reasonList->setFixedHeight(row * int(m_reasons.size()) + 2 * m_reasonList->frameWidth() + 2);
    if (m_help)
        m_help->setContent(m_shortcuts, m_reasons);
    showDraft();
}

bool ReviewPanel::isReviewKey(QKeyCombination key) const
{
    for (const QAction* act : m_actions)
        if (act->shortcuts().contains(QKeySequence(key)))
            return true;
    return false;
}

void ReviewPanel::setShortcuts(const ShortcutMap& map)
{
    m_shortcuts = map;
    m_shortcuts.save(m_settings);
    applyShortcuts();
}

void ReviewPanel::trigger(ReviewAction a)
{
    switch (a) {
    case ReviewAction::Accept: m_session.decide(ReviewStatus::Accepted); return;
    case ReviewAction::Reject: m_session.decide(ReviewStatus::Rejected); return;
    case ReviewAction::NeedsChanges: m_session.decide(ReviewStatus::NeedsChanges); return;
    case ReviewAction::ChooseAccept: m_session.chooseDecision(ReviewStatus::Accepted); break;
    case ReviewAction::ChooseReject: m_session.chooseDecision(ReviewStatus::Rejected); break;
    case ReviewAction::ChooseNeedsChanges: m_session.chooseDecision(ReviewStatus::NeedsChanges); break;
    case ReviewAction::Save: m_session.save(); return;
    case ReviewAction::Skip: m_session.skip(); return;
    case ReviewAction::Undo: m_session.undo(); return;
    case ReviewAction::Comment: break;
    case ReviewAction::Help:
        if (m_helpHandler)
            m_helpHandler();
        else
            showShortcutHelp();
        return;
    default:
        if (auto i = reasonIndex(a))
            toggleReason(*i);
        return;
    }
    enterComment();  // the choose actions and Comment
}

void ReviewPanel::toggleReason(int index)
{
    if (index < 0 || index >= m_reasons.size()) {
        showMessage(tr("No reason code %1: the settings list %2 (review/reasons)").arg(index + 1).arg(m_reasons.size()),
                    true);
        return;
    }
    const QString code = m_reasons.at(index).code;
    m_session.setReason(m_session.reason() == code ? QString() : code);
}

void ReviewPanel::enterComment()
{
    m_comment->setFocus(Qt::ShortcutFocusReason);
    m_comment->moveCursor(QTextCursor::End);
}

void ReviewPanel::leaveComment()
{
    QWidget* back = m_returnFocus.data();
    if (back != nullptr && back->isVisible() && back->window() == window())
        back->setFocus(Qt::ShortcutFocusReason);
    else
        setFocus(Qt::ShortcutFocusReason);
}

void ReviewPanel::showCurrent()
{
    const QString id = m_session.currentTaskId();
    if (id.isEmpty()) {
        m_task->setText(tr("Nothing left to review in this list"));
        return;
    }
    const auto status = m_session.statusOf(id);
    const QString title = m_session.titleOf(id);
    m_task->setText(
        QStringLiteral("%1%2%3").arg(id, title.isEmpty() ? QString() : QStringLiteral(" — ") + title,
                                     status ? QStringLiteral("  [%1]").arg(statusText(*status)) : QString()));
}

void ReviewPanel::showDraft()
{
    if (m_comment->toPlainText() != m_session.comment())
        m_comment->setPlainText(m_session.comment());
    int row = -1;
    for (int i = 0; i < m_reasons.size(); ++i)
        if (m_reasons.at(i).code == m_session.reason())
            row = i;
    m_reasonList->setCurrentRow(row);
    const QString reason = m_session.reason().isEmpty() ? tr("none") : m_session.reason();
    if (const auto chosen = m_session.chosenDecision())
        m_draft->setText(tr("Chosen: %1 · reason: %2 · %3 saves")
                             .arg(statusText(*chosen), reason, keyText(m_shortcuts.key(ReviewAction::Save))));
    else
        m_draft->setText(tr("Reason: %1 · a decision key records it with this comment").arg(reason));
}

void ReviewPanel::showHistory()
{
    const ReviewProgress p = m_session.progress();
    m_progress->setText(tr("%1 of %2 reviewed").arg(p.reviewed).arg(p.total));
    m_recent->showDecisions(m_session.decisions());
}

void ReviewPanel::showMessage(const QString& text, bool isError)
{
    m_message->setStyleSheet(isError ? QStringLiteral("color: #b00020;") : QString());
    m_message->setText(text);
}

void ReviewPanel::showShortcutHelp()
{
    if (!m_help)
        m_help = new ShortcutHelpDialog(this);
    m_help->setContent(m_shortcuts, m_reasons);
    m_help->open();
}

void ReviewPanel::editShortcuts()
{
    auto* dialog = new ShortcutDialog(m_shortcuts, m_reasons, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { setShortcuts(dialog->map()); });
    dialog->open();
}

void ReviewPanel::showEvent(QShowEvent* event)
{
    m_guard->watchWindowOf(this);
    QWidget::showEvent(event);
}

}  // namespace km::ui
