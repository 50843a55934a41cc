#pragma once
// A web page that shows only what setHtml() gives it, with subresources from one folder (the KaTeX folder): every
// other request is blocked and every other navigation refused, so a spec cannot fetch anything. GUI thread.

#include <QUrl>
#include <QWebEnginePage>
#include <QWebEngineUrlRequestInterceptor>

namespace km::ui {

// Blocks every request but data: and file: URLs under the allowed folder. Runs on the GUI thread (Qt 6).
class LocalFileInterceptor : public QWebEngineUrlRequestInterceptor {
    Q_OBJECT
public:
    LocalFileInterceptor(const QUrl& allowedFolder, QObject* parent);
    void interceptRequest(QWebEngineUrlRequestInfo& info) override;
    bool allows(const QUrl& url) const;

Q_SIGNALS:
    void blocked(const QUrl& url);

private:
    QString m_folder;  // a clean absolute path ending in '/'
};

class LocalOnlyPage : public QWebEnginePage {
    Q_OBJECT
public:
    // `allowedFolder`: a file: URL of a folder (the page's base URL).
    LocalOnlyPage(const QUrl& allowedFolder, QObject* parent);

Q_SIGNALS:
    // A navigation or a request the page refused: a clicked link, a script changing location, a remote resource.
    void blocked(const QUrl& url);

protected:
    bool acceptNavigationRequest(const QUrl& url, NavigationType type, bool isMainFrame) override;

private:
    LocalFileInterceptor* m_interceptor;
};

}  // namespace km::ui
