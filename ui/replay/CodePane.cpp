// CodePane: a step's solution with its diagnostics at their lines.
#include "replay/CodePane.h"

#include "views/Qsci.h"

#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QVBoxLayout>

namespace km::replay {

namespace {
constexpr int kLineRole = Qt::UserRole + 1;
constexpr int kAnnotationStyle = 40;  // a style number past the Python lexer's

int markerFor(const QString& severity)
{
    if (severity == QLatin1String("error"))
        return CodePane::kErrorMarker;
    if (severity == QLatin1String("warning"))
        return CodePane::kWarningMarker;
    return CodePane::kNoteMarker;
}
}  // namespace

CodePane::CodePane(QWidget* parent)
    : QWidget(parent)
    , m_empty(new QLabel(this))
    , m_editor(new QsciScintilla(this))
    , m_list(new QListWidget(this))
{
    m_editor->setObjectName(QStringLiteral("stepCode"));
    m_list->setObjectName(QStringLiteral("diagnosticList"));
    m_empty->setObjectName(QStringLiteral("codeEmpty"));
    m_editor->setUtf8(true);
    m_editor->setLexer(new QsciLexerPython(m_editor));
    m_editor->setReadOnly(true);
    m_editor->setMarginType(0, QsciScintilla::NumberMargin);
    m_editor->setMarginWidth(0, QStringLiteral("00000"));
    m_editor->setMarginType(1, QsciScintilla::SymbolMargin);
    m_editor->setMarginWidth(1, 16);
    m_editor->markerDefine(QsciScintilla::Circle, kErrorMarker);
    m_editor->setMarkerBackgroundColor(QColor(0xd0, 0x3b, 0x3b), kErrorMarker);
    m_editor->markerDefine(QsciScintilla::Circle, kWarningMarker);
    m_editor->setMarkerBackgroundColor(QColor(0xe6, 0x7e, 0x22), kWarningMarker);
    m_editor->markerDefine(QsciScintilla::Circle, kNoteMarker);
    m_editor->setMarkerBackgroundColor(QColor(0x3b, 0x7d, 0xd0), kNoteMarker);
    m_editor->setMarginMarkerMask(1, (1 << kErrorMarker) | (1 << kWarningMarker) | (1 << kNoteMarker));
    m_editor->setAnnotationDisplay(QsciScintilla::AnnotationBoxed);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_editor);
    split->addWidget(m_list);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_empty);
    layout->addWidget(split, 1);
    connect(m_list, &QListWidget::itemActivated, this, &CodePane::activate);
    connect(m_list, &QListWidget::itemClicked, this, &CodePane::activate);
    setCode({}, std::nullopt);
}

void CodePane::setCode(const QString& code, const std::optional<Verdict>& verdict)
{
    m_editor->setReadOnly(false);
    m_editor->setText(code);
    m_editor->setReadOnly(true);
    m_editor->markerDeleteAll();
    m_editor->clearAnnotations();
    m_list->clear();
    m_empty->setText(tr("No code: the reply had none."));
    m_empty->setVisible(code.isEmpty());

    QHash<int, QStringList> notes;  // line -> annotation lines
    const int lines = m_editor->lines();
    const auto add = [&](const QString& severity, int line, const QString& text) {
        const bool mapped = line > 0 && line <= lines;
        auto* item = new QListWidgetItem(mapped ? tr("%1 line %2: %3").arg(severity).arg(line).arg(text)
                                                : tr("%1 (no line): %2").arg(severity, text));
        item->setData(kLineRole, mapped ? line : 0);
        item->setToolTip(text);
        m_list->addItem(item);
        if (!mapped)
            return;
        m_editor->markerAdd(line - 1, markerFor(severity));
        notes[line] << QStringLiteral("%1: %2").arg(severity, text);
    };
    if (verdict) {
        for (const SolutionDiagnostic& d : verdict->diagnostics)
            add(d.severity, d.line, d.message.trimmed());
        for (const Finding& f : verdict->findings)
            add(toString(f.severity), f.line, QStringLiteral("%1: %2").arg(f.check, f.message));
    }
    for (auto it = notes.cbegin(); it != notes.cend(); ++it)
        m_editor->annotate(it.key() - 1, it.value().join(QLatin1Char('\n')), kAnnotationStyle);
    if (m_list->count() == 0)
        m_list->addItem(verdict ? tr("No diagnostics or findings.") : tr("No verdict: no diagnostics."));
}

void CodePane::jumpToLine(int line)
{
    if (line <= 0)
        return;
    m_editor->setCursorPosition(line - 1, 0);
    m_editor->ensureLineVisible(line - 1);
    m_editor->setFocus(Qt::OtherFocusReason);
}

QList<int> CodePane::markedLines() const
{
    QList<int> out;
    const unsigned mask = (1u << kErrorMarker) | (1u << kWarningMarker) | (1u << kNoteMarker);
    for (int l = 0; l < m_editor->lines(); ++l)
        if (unsigned(m_editor->markersAtLine(l)) & mask)
            out << l + 1;
    return out;
}

void CodePane::activate(QListWidgetItem* item)
{
    if (item)
        jumpToLine(item->data(kLineRole).toInt());
}

}  // namespace km::replay
