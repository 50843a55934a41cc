// SpecView on a real spec: KaTeX renders every formula, a bad formula shows as an error and not as a broken page,
// the source toggle shows the exact Markdown, and the page can fetch or navigate to nothing.
// Runs Chromium: main() calls km::ui::prepareWebEngine() before QApplication, which (as root, in CI) sets
// QTWEBENGINE_DISABLE_SANDBOX=1. KMOSAIC_SCREENSHOT_DIR, when set, receives spec-view-<task>.png.
#include "render/LocalOnlyPage.h"
#include "render/MathSegments.h"
#include "render/SpecHtml.h"
#include "render/SpecView.h"
#include "render/WebEngineSetup.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTcpServer>
#include <QWebEnginePage>
#include <QWebEngineSettings>
#include <QWebEngineView>
#include <QtTest>

using namespace km::ui;

namespace {

QString readSpec(const QString& id)
{
    QFile f(QStringLiteral(KMOSAIC_TASKS_DIR "/") + id + "/spec.md");
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Runs a script in the page and waits for its value (events keep flowing; no fixed sleep).
QVariant js(QWebEnginePage* page, const QString& script)
{
    auto result = std::make_shared<std::optional<QVariant>>();
    page->runJavaScript(script, [result](const QVariant& v) { *result = v; });
    if (!QTest::qWaitFor([&] { return result->has_value(); }, 10000))
        return QStringLiteral("<no answer>");
    return **result;
}

int count(QWebEnginePage* page, const char* selector)
{
    return js(page, QStringLiteral("document.querySelectorAll('%1').length").arg(QLatin1String(selector))).toInt();
}

int mathCount(const QString& md)
{
    const auto s = splitMath(md);
    return int(std::count_if(s.cbegin(), s.cend(), [](const auto& x) { return x.kind != MathSegment::Kind::Text; }));
}

bool isBlank(const QImage& image)
{
    const QRgb first = image.pixel(0, 0);
    for (int y = 0; y < image.height(); y += 4)
        for (int x = 0; x < image.width(); x += 4)
            if (image.pixel(x, y) != first)
                return false;
    return true;
}

}  // namespace

class TestSpecView : public QObject {
    Q_OBJECT
    std::unique_ptr<SpecView> m_view;

    // Sets the spec and waits for the page to load; KaTeX has run by then (its script is synchronous).
    bool render(const QString& md)
    {
        QSignalSpy finished(m_view.get(), &SpecView::renderFinished);
        m_view->setSpec(md);
        return finished.wait(60000) && finished.last().at(0).toBool();
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!hasKatex(defaultKatexDir()))
            QSKIP("KaTeX (libjs-katex) is not installed");
        m_view = std::make_unique<SpecView>();
        m_view->resize(900, 640);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    }

    void emptyStateStartsNothing()
    {
        m_view->setSpec({});
        QVERIFY(m_view->findChild<QLabel*>("specEmpty")->isVisible());
        QCOMPARE(m_view->findChild<QLabel*>("specEmpty")->text(), QStringLiteral("No specification."));
        QVERIFY(!m_view->page());
    }

    void rendersRealSpec()
    {
        const QString md = readSpec("softmax-rows");
        QVERIFY(!md.isEmpty());
        QElapsedTimer timer;
        timer.start();
        QVERIFY(render(md));
        qInfo("first render, WebEngine start-up included: %lld ms", timer.elapsed());
        QWebEnginePage* page = m_view->page();
        QVERIFY(m_view->findChild<QWebEngineView*>("specWebView")->isVisible());
        QCOMPARE(count(page, ".km-math"), mathCount(md));
        QCOMPARE(count(page, ".katex"), mathCount(md));
        QCOMPARE(count(page, ".katex-display"), 2);
        QCOMPARE(count(page, ".katex-error"), 0);
        QVERIFY(js(page, "document.body.innerText").toString().contains("Softmax along the last dimension"));
        // The stylesheet and the fonts came from the KaTeX folder.
        QVERIFY(js(page, "getComputedStyle(document.querySelector('.katex')).fontFamily").toString().contains("KaTeX"));
        QTRY_COMPARE_WITH_TIMEOUT(js(page, "document.fonts.status").toString(), QStringLiteral("loaded"), 10000);
        QVERIFY(js(page, "Array.from(document.fonts).filter(f => f.family.startsWith('KaTeX') && "
                         "f.status == 'loaded').length")
                    .toInt() > 0);

        timer.restart();
        QVERIFY(render(readSpec("mha-forward")));
        qInfo("second render: %lld ms", timer.elapsed());
        QCOMPARE(count(page, ".katex"), mathCount(readSpec("mha-forward")));
        QCOMPARE(count(page, ".katex-error"), 0);
    }

    // Every bundled spec renders every formula: KaTeX supports all the TeX they use.
    void everyBundledSpecRenders()
    {
        const QDir tasks(QStringLiteral(KMOSAIC_TASKS_DIR));
        int specs = 0;
        for (const QString& id : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QString md = readSpec(id);
            if (md.isEmpty())
                continue;
            ++specs;
            QVERIFY2(render(md), qPrintable(id));
            QCOMPARE(count(m_view->page(), ".katex"), mathCount(md));
            QVERIFY2(count(m_view->page(), ".katex-error") == 0, qPrintable(id));
            QVERIFY2(js(m_view->page(), "document.querySelectorAll('.katex [style*=\"color\"]').length").toInt() == 0,
                     qPrintable(id + ": a command KaTeX does not know, shown in red"));
        }
        QVERIFY(specs >= 20);
    }

    void badFormulaIsShownNotFatal()
    {
        // A parse error becomes a red .katex-error holding the source; an unknown command renders, in red, inside
        // an otherwise good formula (throwOnError: false).
        QVERIFY(render("Good $x^2$, bad $\\frac{1}{$ and unknown $\\nosuchmacro{y}$, then **more** text."));
        QWebEnginePage* page = m_view->page();
        QCOMPARE(count(page, ".katex"), 2);
        QCOMPARE(count(page, ".katex-error"), 1);
        QVERIFY(count(page, ".katex [style*=\"color\"]") > 0);  // \nosuchmacro, in red
        QVERIFY(js(page, "document.querySelector('.katex-error').textContent").toString().contains("\\frac{1}{"));
        QVERIFY(js(page, "document.querySelector('.katex-error').title").toString().contains("ParseError"));
        const QString text = js(page, "document.body.innerText").toString();
        QVERIFY2(text.contains("\\nosuchmacro") && text.contains("then more text."), qPrintable(text));
    }

    void sourceToggleShowsExactMarkdown()
    {
        const QString md = readSpec("conv1d");
        QVERIFY(render(md));
        auto* source = m_view->findChild<QPlainTextEdit*>("specSource");
        auto* web = m_view->findChild<QWebEngineView*>("specWebView");
        QAction* toggle = m_view->showSourceAction();
        QCOMPARE(toggle->text(), QStringLiteral("Show source"));
        QVERIFY(toggle->isCheckable() && !toggle->isChecked());
        toggle->trigger();
        QVERIFY(m_view->isShowingSource());
        QVERIFY(source->isVisible() && !web->isVisible());
        QVERIFY(source->isReadOnly());
        QCOMPARE(source->toPlainText(), md);
        toggle->trigger();
        QVERIFY(!m_view->isShowingSource());
        QVERIFY(web->isVisible() && !source->isVisible());
    }

    void navigationAndRemoteRequestsAreBlocked()
    {
        QVERIFY(render("See [a link](https://example.com/) and $x$."));
        QWebEnginePage* page = m_view->page();
        const QUrl before = page->url();
        QCOMPARE(count(page, "a[href]"), 0);  // links are inert text
        QSignalSpy blocked(m_view.get(), &SpecView::blocked);
        js(page, "location.href = 'https://example.com/'; 1");
        QTRY_COMPARE_WITH_TIMEOUT(blocked.size(), 1, 10000);
        QCOMPARE(blocked.last().at(0).toUrl().host(), QStringLiteral("example.com"));
        js(page, "location.href = 'file:///etc/passwd'; 1");
        QTRY_COMPARE_WITH_TIMEOUT(blocked.size(), 2, 10000);
        js(page, "location.href = 'katex.min.css'; 1");  // even a file the page may load as a subresource
        QTRY_COMPARE_WITH_TIMEOUT(blocked.size(), 3, 10000);
        QCOMPARE(page->url(), before);
        QCOMPARE(count(page, ".katex"), 1);  // still our page
    }

    // Without the page's Content-Security-Policy and with Chromium's local-content rule relaxed, the interceptor
    // alone still stops remote and foreign requests: nothing reaches a local server.
    void interceptorBlocksWhatThePolicyMissed()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        const QUrl base = katexBaseUrl(defaultKatexDir());
        LocalOnlyPage page(base, nullptr);
        page.settings()->setAttribute(QWebEngineSettings::LocalContentCanAccessRemoteUrls, true);
        QSignalSpy blocked(&page, &LocalOnlyPage::blocked);
        QSignalSpy loaded(&page, &QWebEnginePage::loadFinished);
        const QString remote = QStringLiteral("http://127.0.0.1:%1/x.png").arg(server.serverPort());
        page.setHtml("<link rel='stylesheet' href='katex.min.css'><link rel='stylesheet' href='file:///etc/passwd'>"
                     "<img src='" +
                         remote + "'>",
                     base);
        QVERIFY(loaded.wait(30000));
        QList<QUrl> urls;
        for (const auto& args : blocked)
            urls.append(args.at(0).toUrl());
        QVERIFY2(urls.contains(QUrl(remote)) && urls.contains(QUrl("file:///etc/passwd")),
                 qPrintable(QString::number(urls.size())));
        QVERIFY(!urls.contains(base.resolved(QUrl("katex.min.css"))));
        QVERIFY(!server.hasPendingConnections());
    }

    void interceptorRules_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("katex script") << "file:///usr/share/javascript/katex/katex.min.js" << true;
        QTest::newRow("katex font") << "file:///usr/share/javascript/katex/fonts/KaTeX_Main-Regular.woff2" << true;
        QTest::newRow("data") << "data:text/html,hello" << true;
        QTest::newRow("traversal") << "file:///usr/share/javascript/katex/../../../../etc/passwd" << false;
        QTest::newRow("sibling prefix") << "file:///usr/share/javascript/katex-evil/x.js" << false;
        QTest::newRow("other file") << "file:///etc/passwd" << false;
        QTest::newRow("remote file") << "file://host/usr/share/javascript/katex/katex.min.js" << false;
        QTest::newRow("https") << "https://cdn.jsdelivr.net/npm/katex/dist/katex.min.js" << false;
        QTest::newRow("ws") << "ws://127.0.0.1:1/" << false;
    }

    void interceptorRules()
    {
        QFETCH(QString, url);
        QFETCH(bool, allowed);
        LocalFileInterceptor interceptor(QUrl("file:///usr/share/javascript/katex/"), nullptr);
        QCOMPARE(interceptor.allows(QUrl(url)), allowed);
    }

    void screenshot()
    {
        const QString dir = qEnvironmentVariable("KMOSAIC_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("KMOSAIC_SCREENSHOT_DIR is not set");
        QVERIFY(QDir().mkpath(dir));
        auto* web = m_view->findChild<QWebEngineView*>("specWebView");
        for (const QString id : {"softmax-rows", "conv1d"}) {
            const QImage before = web->grab().toImage();
            QVERIFY(render(readSpec(id)));
            QTRY_COMPARE_WITH_TIMEOUT(js(m_view->page(), "document.fonts.status").toString(), QStringLiteral("loaded"),
                                      10000);
            // The compositor paints after the load: wait for the new page's frame, then for the frames to settle.
            const bool painted = QTest::qWaitFor(
                [&] {
                    const QImage now = web->grab().toImage();
                    return now != before && !isBlank(now);
                },
                10000);
            if (!painted)
                qWarning("the web view did not repaint offscreen: the page was checked through runJavaScript only");
            QImage last;
            [[maybe_unused]] const bool settled = QTest::qWaitFor(
                [&] {
                    const QImage now = web->grab().toImage();
                    return std::exchange(last, now) == now;
                },
                2000);
            QVERIFY(m_view->grab().save(QDir(dir).filePath("spec-view-" + id + ".png")));
        }
    }

    void withoutKatexTheViewSaysSo()
    {
        SpecView view(QStringLiteral("/nonexistent/katex"));
        view.resize(600, 300);
        view.show();
        QSignalSpy finished(&view, &SpecView::renderFinished);
        view.setSpec("Math $x_1$ here.");
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.last().at(0).toBool());
        QCOMPARE(count(view.page(), ".km-notice"), 1);
        QCOMPARE(js(view.page(), "document.querySelector('.km-math').textContent").toString(), QStringLiteral("x_1"));
    }

    void cleanupTestCase() { m_view.reset(); }
};

int main(int argc, char** argv)
{
    prepareWebEngine();
    QApplication app(argc, argv);
    TestSpecView test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "test_spec_view.moc"
