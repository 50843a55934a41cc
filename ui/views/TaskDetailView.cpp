#include "views/TaskDetailView.h"

#include "views/Qsci.h"
#include <QFontDatabase>
#include <QLabel>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace km::ui {

TaskDetailView::TaskDetailView(QWidget* parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_description(new QTextBrowser(this))
    , m_reference(new QsciScintilla(this))
    , m_spec(new QTextBrowser(this))
    , m_metadata(new QTextBrowser(this))
{
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    auto* lexer = new QsciLexerPython(m_reference);
    lexer->setDefaultFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_reference->setLexer(lexer);
    m_reference->setReadOnly(true);
    m_reference->setMarginType(0, QsciScintilla::NumberMargin);
    m_reference->setMarginWidth(0, QStringLiteral("00000"));
    m_reference->setFolding(QsciScintilla::BoxedTreeFoldStyle);
    m_reference->setObjectName(QStringLiteral("referenceEditor"));
    m_description->setObjectName(QStringLiteral("descriptionView"));
    m_spec->setObjectName(QStringLiteral("specView"));
    m_tabs->addTab(m_description, tr("Description"));
    m_tabs->addTab(m_reference, tr("Reference"));
    m_tabs->addTab(m_spec, tr("Specification"));
    m_tabs->addTab(m_metadata, tr("Metadata"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(m_tabs, 1);
    clear();
}

void TaskDetailView::clear()
{
    m_header->setText(tr("<i>Select a task</i>"));
    m_description->clear();
    m_reference->clear();
    m_spec->clear();
    m_metadata->clear();
}

void TaskDetailView::setTask(const Task& t)
{
    QStringList shown;
    for (Presentation p : allPresentations())
        shown.append(t.shown.has(p) ? QStringLiteral("<b>%1</b>").arg(toString(p))
                                    : QStringLiteral("<s>%1</s>").arg(toString(p)));
    m_header->setText(QStringLiteral("<b>%1</b> &nbsp; %2<br>level %3 · %4 · %5 · shown to the model: %6")
                          .arg(t.id.toHtmlEscaped(), t.title.toHtmlEscaped())
                          .arg(t.level)
                          .arg(t.dtype, toString(t.status), shown.join(QStringLiteral(" "))));
    m_description->setMarkdown(t.description.isEmpty() ? tr("*No description.*") : t.description);
    m_reference->setText(t.reference);
    // Math is shown as LaTeX source until the rendered view lands (review issue).
    m_spec->setPlainText(t.spec.isEmpty() ? tr("No specification.") : t.spec);
    const Tolerance tol = t.tolerance.value_or(defaultTolerance(t.dtype));
    QString meta = QStringLiteral("<table>");
    auto row = [&](const QString& k, const QString& v) {
        meta += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v.toHtmlEscaped());
    };
    row(tr("Categories"), t.categories.join(QStringLiteral(", ")));
    row(tr("Tags"), t.tags.join(QStringLiteral(", ")));
    row(tr("Tolerance"), QStringLiteral("atol %1, rtol %2%3")
                             .arg(tol.atol)
                             .arg(tol.rtol)
                             .arg(t.tolerance ? QString() : tr(" (dtype default)")));
    row(tr("FLOPs"), t.flopsFormula);
    row(tr("Bytes"), t.bytesFormula);
    for (const TaskConfig& c : t.configs) {
        QStringList kv;
        for (auto it = c.values.cbegin(); it != c.values.cend(); ++it)
            kv.append(QStringLiteral("%1=%2").arg(it.key(), it.value().toString()));
        row(tr("Config %1").arg(c.name), kv.join(QStringLiteral(", ")));
    }
    row(tr("Forbidden ops"), t.forbiddenOps.join(QStringLiteral(", ")));
    m_metadata->setHtml(meta + QStringLiteral("</table>"));
}

}  // namespace km::ui
