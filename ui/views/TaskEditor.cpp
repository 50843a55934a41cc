#include "views/TaskEditor.h"

#include "curate/TaskToml.h"
#include "curate/TaskValidator.h"
#include "model/TaskVariant.h"
#include "views/Qsci.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QTabWidget>
#include <QVBoxLayout>

namespace km::ui {

namespace {
QsciScintilla* codeEditor(QWidget* parent, const QString& name, QsciLexer* lexer)
{
    auto* e = new QsciScintilla(parent);
    e->setObjectName(name);
    if (lexer) {
        lexer->setParent(e);
        lexer->setDefaultFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        e->setLexer(lexer);
    } else {
        e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    }
    e->setMarginType(0, QsciScintilla::NumberMargin);
    e->setMarginWidth(0, QStringLiteral("0000"));
    e->setUtf8(true);
    e->setProperty("kmosaicTextInput", true);  // review keys stay out of it while the user types
    return e;
}
}  // namespace

TaskEditor::TaskEditor(QWidget* parent)
    : QWidget(parent)
    , m_tabs(new QTabWidget(this))
    , m_toml(codeEditor(this, QStringLiteral("tomlEditor"), nullptr))
    , m_description(new QPlainTextEdit(this))
    , m_reference(codeEditor(this, QStringLiteral("referenceEditorEdit"), new QsciLexerPython))
    , m_spec(new QPlainTextEdit(this))
    , m_message(new QLabel(this))
{
    m_description->setObjectName(QStringLiteral("descriptionEditor"));
    m_spec->setObjectName(QStringLiteral("specEditor"));
    m_tabs->addTab(m_toml, QStringLiteral("task.toml"));
    m_tabs->addTab(m_description, QStringLiteral("description.md"));
    m_tabs->addTab(m_reference, QStringLiteral("reference.py"));
    m_tabs->addTab(m_spec, QStringLiteral("spec.md"));
    auto* save = new QPushButton(tr("Save (Ctrl+S)"), this);
    save->setObjectName(QStringLiteral("saveTask"));
    auto* revert = new QPushButton(tr("Revert"), this);
    revert->setObjectName(QStringLiteral("revertTask"));
    m_message->setObjectName(QStringLiteral("editorMessage"));
    m_message->setWordWrap(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_message, 1);
    buttons->addWidget(revert);
    buttons->addWidget(save);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs, 1);
    layout->addLayout(buttons);

    connect(save, &QPushButton::clicked, this, &TaskEditor::saveRequested);
    connect(revert, &QPushButton::clicked, this, &TaskEditor::revertRequested);
    auto* shortcut = new QShortcut(QKeySequence::Save, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, &TaskEditor::saveRequested);
    connect(m_toml, &QsciScintilla::textChanged, this, &TaskEditor::markDirty);
    connect(m_reference, &QsciScintilla::textChanged, this, &TaskEditor::markDirty);
    connect(m_description, &QPlainTextEdit::textChanged, this, &TaskEditor::markDirty);
    connect(m_spec, &QPlainTextEdit::textChanged, this, &TaskEditor::markDirty);
}

void TaskEditor::setTask(const Task& task)
{
    m_loading = true;
    m_original = task;
    m_toml->setText(QString::fromUtf8(writeTaskToml(task)));
    m_description->setPlainText(task.description);
    m_reference->setText(task.reference);
    m_spec->setPlainText(task.spec);
    m_loading = false;
    setEnabled(true);
    showMessage({}, false);
    if (m_dirty) {
        m_dirty = false;
        Q_EMIT dirtyChanged(false);
    }
}

void TaskEditor::clear()
{
    setTask(Task{});
    m_loading = true;
    m_toml->clear();  // an empty task still writes a task.toml skeleton
    m_loading = false;
    setEnabled(false);
}

void TaskEditor::markDirty()
{
    if (m_loading || m_dirty)
        return;
    m_dirty = true;
    Q_EMIT dirtyChanged(true);
}

void TaskEditor::showMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
}

std::variant<Task, QString> TaskEditor::editedTask() const
{
    if (m_original.id.isEmpty())
        return tr("No task is selected: there is nothing to save");
    TomlError terr;
    const auto doc = parseToml(m_toml->text().toUtf8(), &terr);
    if (!doc)
        return QStringLiteral("task.toml:%1: %2").arg(terr.line).arg(terr.reason);
    auto decoded = taskFromVariant(doc->root, false);
    if (!decoded)
        return QStringLiteral("task.toml:%1: %2").arg(doc->lineOf(decoded.error().detail)).arg(decoded.error().message);
    Task t = std::move(decoded).value();
    if (t.id != m_original.id)
        return QStringLiteral("task.toml:%1: the id cannot change (was '%2')")
            .arg(doc->lineOf(QStringLiteral("id")))
            .arg(m_original.id);
    t.description = m_description->toPlainText();
    t.reference = m_reference->text();
    t.spec = m_spec->toPlainText();
    t.status = m_original.status;  // review status changes through reviews, not edits
    QStringList errors;
    for (const ValidationIssue& v : validateTask(t))
        if (v.error)
            errors.append(
                v.field.endsWith(QLatin1String(".py"))
                    ? QStringLiteral("%1: %2").arg(v.field, v.message)
                    : QStringLiteral("task.toml:%1: %2: %3").arg(doc->lineOf(v.field)).arg(v.field, v.message));
    if (!errors.isEmpty())
        return errors.join(QLatin1Char('\n'));
    return t;
}

}  // namespace km::ui
