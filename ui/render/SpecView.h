#pragma once
// Shows a task's specification (Markdown with LaTeX math) rendered by KaTeX in a local-only web view, or its
// Markdown source ("Show source"). Starts WebEngine lazily, on the first non-empty spec while visible. GUI thread.

#include <QWidget>

class QAction;
class QLabel;
class QPlainTextEdit;
class QStackedWidget;
class QWebEnginePage;
class QWebEngineView;

namespace km::ui {

class SpecView : public QWidget {
    Q_OBJECT
public:
    // KaTeX from defaultKatexDir() (libjs-katex; $KMOSAIC_KATEX_DIR overrides it).
    explicit SpecView(QWidget* parent = nullptr);
    // KaTeX from `katexDir`; when it lacks KaTeX the page says so and shows formulas as TeX source.
    explicit SpecView(const QString& katexDir, QWidget* parent = nullptr);
    ~SpecView() override;

    // Empty: shows the empty state and starts nothing. Repeated calls coalesce; the latest wins.
    void setSpec(const QString& markdown);
    void clear() { setSpec({}); }
    QString spec() const { return m_markdown; }

    QAction* showSourceAction() const { return m_showSource; }
    bool isShowingSource() const;
    // The page once WebEngine has started (nullptr before), e.g. for tests and runJavaScript().
    QWebEnginePage* page() const;

Q_SIGNALS:
    // The rendered page finished loading (KaTeX has run by then) or failed to.
    void renderFinished(bool ok);
    // A request or navigation the page refused (a link, a remote image): for a status bar.
    void blocked(const QUrl& url);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void renderIfDirty();
    void ensureWebView();
    void updateCurrentPage();

    QString m_katexDir;
    QString m_markdown;
    bool m_dirty = false;
    QAction* m_showSource;
    QStackedWidget* m_stack;
    QLabel* m_empty;
    QPlainTextEdit* m_source;
    QWebEngineView* m_web = nullptr;
};

}  // namespace km::ui
