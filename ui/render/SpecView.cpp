#include "render/SpecView.h"

#include "render/LocalOnlyPage.h"
#include "render/SpecHtml.h"
#include "render/WebEngineSetup.h"

#include <QAction>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QStackedWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <QWebEngineView>

namespace km::ui {

namespace {
// setHtml() goes through a data: URL, which Chromium limits to 2 MB.
constexpr qsizetype kMaxPageBytes = 2 * 1024 * 1024 - 4096;
}  // namespace

SpecView::SpecView(QWidget* parent) : SpecView(defaultKatexDir(), parent) {}

SpecView::SpecView(const QString& katexDir, QWidget* parent)
    : QWidget(parent)
    , m_katexDir(katexDir)
    , m_showSource(new QAction(tr("Show source"), this))
    , m_stack(new QStackedWidget(this))
    , m_empty(new QLabel(tr("No specification."), this))
    , m_source(new QPlainTextEdit(this))
{
    m_showSource->setCheckable(true);
    m_showSource->setToolTip(tr("Show the specification's Markdown source instead of the rendered page"));
    m_showSource->setObjectName(QStringLiteral("showSpecSource"));
    connect(m_showSource, &QAction::toggled, this, &SpecView::updateCurrentPage);
    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(m_showSource);

    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setEnabled(false);
    m_empty->setObjectName(QStringLiteral("specEmpty"));
    m_source->setReadOnly(true);
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_source->setObjectName(QStringLiteral("specSource"));
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_source);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(bar);
    layout->addWidget(m_stack, 1);
}

SpecView::~SpecView()
{
    // The page is the view's child, but ~QWebEngineView runs before children are deleted: delete the page first.
    if (m_web)
        delete m_web->page();
}

bool SpecView::isShowingSource() const
{
    return m_stack->currentWidget() == m_source;
}

QWebEnginePage* SpecView::page() const
{
    return m_web ? m_web->page() : nullptr;
}

void SpecView::setSpec(const QString& markdown)
{
    if (markdown == m_markdown && !m_dirty)
        return;
    m_markdown = markdown;
    m_source->setPlainText(markdown);
    m_dirty = true;
    if (isVisible())
        QMetaObject::invokeMethod(this, &SpecView::renderIfDirty, Qt::QueuedConnection);
    updateCurrentPage();
}

void SpecView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    renderIfDirty();
}

void SpecView::ensureWebView()
{
    if (m_web)
        return;
    disableWebEngineSandboxIfRoot();  // in case main() did not call prepareWebEngine()
    m_web = new QWebEngineView(this);
    m_web->setObjectName(QStringLiteral("specWebView"));
    auto* page = new LocalOnlyPage(katexBaseUrl(m_katexDir), m_web);
    connect(page, &LocalOnlyPage::blocked, this, &SpecView::blocked);
    connect(page, &QWebEnginePage::loadFinished, this, &SpecView::renderFinished);
    m_web->setPage(page);
    m_stack->addWidget(m_web);
}

void SpecView::renderIfDirty()
{
    if (!m_dirty || !isVisible())
        return;
    m_dirty = false;
    if (!m_markdown.isEmpty()) {
        ensureWebView();
        const bool katex = hasKatex(m_katexDir);
        QString html = specPageHtml(m_markdown, {m_katexDir, katex});
        if (html.toUtf8().size() > kMaxPageBytes)
            html = tr("<p>The specification is too large to render (over 2 MB): use <b>Show source</b>.</p>");
        m_web->setHtml(html, katexBaseUrl(m_katexDir));
    }
    updateCurrentPage();
}

void SpecView::updateCurrentPage()
{
    m_empty->setText(m_markdown.isEmpty() ? tr("No specification.") : tr("Rendering…"));
    if (m_showSource->isChecked())
        m_stack->setCurrentWidget(m_source);
    else if (m_markdown.isEmpty() || !m_web)
        m_stack->setCurrentWidget(m_empty);  // no spec, or WebEngine starts when the view is first shown
    else
        m_stack->setCurrentWidget(m_web);
}

}  // namespace km::ui
