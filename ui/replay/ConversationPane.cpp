// ConversationPane: prompt, reply and messages of one step.
#include "replay/ConversationPane.h"

#include "replay/MarkdownDocument.h"

#include <QCheckBox>
#include <QGroupBox>
#include <QListWidget>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

namespace km::replay {

namespace {
QWidget* titled(const QString& title, QWidget* content, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(2, 2, 2, 2);
    l->addWidget(content);
    return box;
}

// A QTextEdit lays its document out again after each block the Markdown importer inserts: 220 ms for a reply that
// holds a 2,000-line solution. Filled while no view is attached, then shown, the same document takes 15-20 ms; with
// its long code fences spliced in (MarkdownDocument.h), a few ms.
void showMarkdown(QTextBrowser* b, const QString& text)
{
    QTextDocument* old = b->document();
    const bool ours = old->parent() == b;  // the browser's first document is its text control's, deleted by it
    auto* doc = new QTextDocument(b);
    doc->setUndoRedoEnabled(false);
    doc->setDefaultFont(old->defaultFont());
    doc->setDefaultStyleSheet(old->defaultStyleSheet());
    doc->setDocumentMargin(old->documentMargin());
    setMarkdown(doc, text);
    b->setDocument(doc);
    if (ours)
        delete old;
}

void showText(QTextBrowser* b, const QString& text, const QString& empty, bool raw)
{
    if (text.isEmpty())
        b->setPlainText(empty);
    else if (raw)
        b->setPlainText(text);
    else
        showMarkdown(b, text);
}
}  // namespace

ConversationPane::ConversationPane(QWidget* parent)
    : QWidget(parent)
    , m_raw(new QCheckBox(tr("&Raw text"), this))
    , m_prompt(new QTextBrowser(this))
    , m_reply(new QTextBrowser(this))
    , m_messages(new QListWidget(this))
    , m_message(new QTextBrowser(this))
{
    m_raw->setObjectName(QStringLiteral("rawToggle"));
    m_raw->setToolTip(tr("Show the prompt and the reply as the model saw and wrote them, without Markdown"));
    m_prompt->setObjectName(QStringLiteral("promptBrowser"));
    m_reply->setObjectName(QStringLiteral("replyBrowser"));
    m_messages->setObjectName(QStringLiteral("messageList"));
    m_message->setObjectName(QStringLiteral("messageBrowser"));
    m_prompt->setOpenExternalLinks(false);
    m_reply->setOpenExternalLinks(false);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(titled(tr("Prompt"), m_prompt, split));
    split->addWidget(titled(tr("Reply"), m_reply, split));
    auto* messages = new QSplitter(Qt::Horizontal, split);
    messages->addWidget(m_messages);
    messages->addWidget(m_message);
    split->addWidget(titled(tr("Messages added by this step"), messages, split));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_raw);
    layout->addWidget(split, 1);
    connect(m_raw, &QCheckBox::toggled, this, &ConversationPane::render);
    connect(m_messages, &QListWidget::currentRowChanged, this, &ConversationPane::renderMessage);
    clear();
}

void ConversationPane::setStep(const TrajectoryStep& step)
{
    m_promptText = step.prompt;
    m_replyText = step.reply;
    m_messages->clear();
    for (const QVariant& v : step.messages) {
        const QVariantMap m = v.toMap();
        const QString role = m.value(QStringLiteral("role")).toString();
        const QString content = m.value(QStringLiteral("content")).toString();
        auto* item = new QListWidgetItem(QStringLiteral("%1: %2").arg(role, content.left(160).simplified()));
        item->setToolTip(content.left(4000));
        item->setData(Qt::UserRole, content);
        m_messages->addItem(item);
    }
    if (step.messages.isEmpty())
        m_messages->addItem(tr("(no messages recorded)"));
    render();
}

void ConversationPane::clear()
{
    setStep(TrajectoryStep{});
}

void ConversationPane::setRaw(bool raw)
{
    m_raw->setChecked(raw);
}

bool ConversationPane::isRaw() const
{
    return m_raw->isChecked();
}

void ConversationPane::render()
{
    showText(m_prompt, m_promptText, tr("(no prompt recorded)"), isRaw());
    showText(m_reply, m_replyText, tr("(no reply recorded)"), isRaw());
    renderMessage();
}

void ConversationPane::renderMessage()
{
    const QListWidgetItem* item = m_messages->currentItem();
    showText(m_message, item ? item->data(Qt::UserRole).toString() : QString(), tr("(select a message)"), isRaw());
}

}  // namespace km::replay
