#include "render/LocalOnlyPage.h"

#include <QDir>
#include <QLoggingCategory>
#include <QWebEngineSettings>
#include <QWebEngineUrlRequestInfo>

Q_LOGGING_CATEGORY(lcRender, "kmosaic.ui.render")

namespace km::ui {

LocalFileInterceptor::LocalFileInterceptor(const QUrl& allowedFolder, QObject* parent)
    : QWebEngineUrlRequestInterceptor(parent)
    , m_folder(QDir::cleanPath(allowedFolder.toLocalFile()) + QLatin1Char('/'))
{
}

bool LocalFileInterceptor::allows(const QUrl& url) const
{
    if (url.scheme() == QLatin1String("data"))
        return true;
    if (!url.isLocalFile() || !url.host().isEmpty())
        return false;
    return QDir::cleanPath(url.toLocalFile()).startsWith(m_folder);
}

void LocalFileInterceptor::interceptRequest(QWebEngineUrlRequestInfo& info)
{
    if (allows(info.requestUrl()))
        return;
    qCInfo(lcRender) << "blocked a request for" << info.requestUrl().toDisplayString();
    info.block(true);
    Q_EMIT blocked(info.requestUrl());
}

LocalOnlyPage::LocalOnlyPage(const QUrl& allowedFolder, QObject* parent)
    : QWebEnginePage(parent)
    , m_interceptor(new LocalFileInterceptor(allowedFolder, this))
{
    setUrlRequestInterceptor(m_interceptor);
    connect(m_interceptor, &LocalFileInterceptor::blocked, this, &LocalOnlyPage::blocked);
    QWebEngineSettings* s = settings();
    s->setAttribute(QWebEngineSettings::LocalContentCanAccessRemoteUrls, false);
    s->setAttribute(QWebEngineSettings::JavascriptCanOpenWindows, false);
    s->setAttribute(QWebEngineSettings::JavascriptCanAccessClipboard, false);
    s->setAttribute(QWebEngineSettings::LocalStorageEnabled, false);
    s->setAttribute(QWebEngineSettings::PluginsEnabled, false);
    s->setAttribute(QWebEngineSettings::DnsPrefetchEnabled, false);
    s->setAttribute(QWebEngineSettings::NavigateOnDropEnabled, false);
    s->setAttribute(QWebEngineSettings::AutoLoadIconsForPage, false);
}

bool LocalOnlyPage::acceptNavigationRequest(const QUrl& url, NavigationType type, bool isMainFrame)
{
    // setHtml() arrives as a data: URL (checked on Qt 6.4); nothing else may replace the page, not even a file of
    // the allowed folder.
    const bool ours = type != NavigationTypeLinkClicked && isMainFrame && url.scheme() == QLatin1String("data");
    if (!ours) {
        qCInfo(lcRender) << "refused a navigation to" << url.toDisplayString();
        Q_EMIT blocked(url);
    }
    return ours;
}

}  // namespace km::ui
