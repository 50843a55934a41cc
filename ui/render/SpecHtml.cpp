#include "render/SpecHtml.h"

#include "render/MathSegments.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextDocument>

#ifndef KMOSAIC_KATEX_DIR
#define KMOSAIC_KATEX_DIR "/usr/share/javascript/katex"
#endif

namespace km::ui {

namespace {

// Renders every formula; a formula KaTeX cannot parse shows red with its source (throwOnError: false), and any
// other failure (KaTeX missing, an internal error) marks that formula alone, never the page.
const char kRenderScript[] = R"JS(
(function () {
  var nodes = document.querySelectorAll('.km-math');
  for (var i = 0; i < nodes.length; ++i) {
    var el = nodes[i], tex = el.textContent;
    try {
      katex.render(tex, el, {displayMode: el.classList.contains('km-display'), throwOnError: false});
    } catch (e) {
      el.textContent = tex;
      el.classList.add('katex-error');
      el.title = String(e);
    }
  }
})();
)JS";

const char kStyle[] = R"CSS(
body { font-family: sans-serif; font-size: 15px; line-height: 1.5; margin: 10px 16px; color: #1d1d1f;
       background: #ffffff; }
h1 { font-size: 1.7em; margin: 0.3em 0 0.4em; }
h2 { font-size: 1.35em; margin: 0.8em 0 0.3em; }
h3 { font-size: 1.15em; margin: 0.8em 0 0.3em; }
h1 > span, h2 > span, h3 > span { font-size: inherit !important; }
pre { background: #f4f4f4; padding: 6px 8px; border-radius: 4px; overflow-x: auto; }
table { border-collapse: collapse; }
td, th { border: 1px solid #bbbbbb; padding: 2px 6px; }
.katex { font-size: 1.1em; }
.katex-display { overflow-x: auto; overflow-y: hidden; }
.km-math.km-source { font-family: monospace; color: #555555; }
.km-math.katex-error { font-family: monospace; color: #cc0000; }
.km-glue { white-space: nowrap; }
.km-link { color: #0645ad; text-decoration: underline dotted; cursor: help; }
.km-image { color: #666666; font-style: italic; }
.km-notice { background: #fff4ce; border: 1px solid #e0c060; padding: 8px; margin-bottom: 12px; }
)CSS";

QString placeholderPrefix(const QString& markdown)
{
    QString prefix = QStringLiteral("kmmath");
    while (markdown.contains(prefix))
        prefix += QLatin1Char('q');
    return prefix;
}

QString mathElement(const MathSegment& m)
{
    const bool display = m.kind == MathSegment::Kind::DisplayMath;
    return (display ? QStringLiteral("<span class=\"km-math km-display\">")
                    : QStringLiteral("<span class=\"km-math km-inline\">")) +
           m.text.toHtmlEscaped() + QStringLiteral("</span>");
}

// KaTeX lays formulas out as inline blocks, after which a browser may break a line: "$K = 5$)." would leave ")."
// alone at the start of the next line. Glue an opening bracket before and punctuation after an inline formula.
QString restoreMath(const QString& html, const QRegularExpression& placeholder, const QList<MathSegment>& math)
{
    static const QString closing = QStringLiteral(").,;:!?]");
    QString out;
    qsizetype last = 0;
    for (auto it = placeholder.globalMatch(html); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const qsizetype index = m.captured(1).toLongLong();
        if (index >= math.size())
            continue;
        const bool inlineMath = math[index].kind == MathSegment::Kind::InlineMath;
        qsizetype start = m.capturedStart(), end = m.capturedEnd();
        if (inlineMath && start > last && (html[start - 1] == u'(' || html[start - 1] == u'['))
            --start;
        while (inlineMath && end < html.size() && end - m.capturedEnd() < 3 && closing.contains(html[end]))
            ++end;
        out += QStringView(html).mid(last, start - last);
        const QString element = html.mid(start, m.capturedStart() - start) + mathElement(math[index]) +
                                html.mid(m.capturedEnd(), end - m.capturedEnd());
        out += (start < m.capturedStart() || end > m.capturedEnd())
                   ? QStringLiteral("<span class=\"km-glue\">") + element + QStringLiteral("</span>")
                   : element;
        last = end;
    }
    return out + QStringView(html).mid(last);
}

// Each match of `re` in `s` replaced by `f(match)`.
template <typename F> QString replaceMatches(const QString& s, const QRegularExpression& re, F f)
{
    QString out;
    qsizetype last = 0;
    for (auto it = re.globalMatch(s); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(s).mid(last, m.capturedStart() - last);
        out += f(m);
        last = m.capturedEnd();
    }
    return out + QStringView(s).mid(last);
}

// Qt writes links as <a href="URL"> and images as <img src="URL" alt="ALT" .../>: make both inert text, the URL
// in a tooltip. In an attribute, a formula can only be its TeX source.
QString neutraliseReferences(const QString& html, const QRegularExpression& placeholder, const QList<MathSegment>& math)
{
    auto attr = [&](const QString& value) -> QString {
        return replaceMatches(value, placeholder, [&](const QRegularExpressionMatch& m) -> QString {
            const qsizetype index = m.captured(1).toLongLong();
            return index < math.size() ? toMarkdown(math[index]).toHtmlEscaped() : m.captured();
        });
    };
    static const QRegularExpression link(QStringLiteral(R"re(<a href="([^"]*)")re"));
    static const QRegularExpression image(QStringLiteral(R"re(<img src="([^"]*)"([^>]*)>)re"));
    static const QRegularExpression alt(QStringLiteral(R"re(alt="([^"]*)")re"));
    const QString linksDone = replaceMatches(html, link, [&](const QRegularExpressionMatch& m) -> QString {
        return QStringLiteral("<a class=\"km-link\" title=\"") + attr(m.captured(1)) + QLatin1Char('"');
    });
    return replaceMatches(linksDone, image, [&](const QRegularExpressionMatch& m) -> QString {
        return QStringLiteral("<span class=\"km-image\" title=\"") + attr(m.captured(1)) +
               QStringLiteral("\">[image: ") + alt.match(m.captured(2)).captured(1) + QStringLiteral("]</span>");
    });
}

}  // namespace

QString defaultKatexDir()
{
    const QString env = qEnvironmentVariable("KMOSAIC_KATEX_DIR");
    return env.isEmpty() ? QStringLiteral(KMOSAIC_KATEX_DIR) : env;
}

bool hasKatex(const QString& dir)
{
    const QDir d(dir);
    return QFileInfo(d.filePath(QStringLiteral("katex.min.js"))).isReadable() &&
           QFileInfo(d.filePath(QStringLiteral("katex.min.css"))).isReadable() &&
           QFileInfo(d.filePath(QStringLiteral("fonts"))).isDir();
}

QUrl katexBaseUrl(const QString& dir)
{
    QString path = QDir::cleanPath(QDir(dir).absolutePath());
    if (!path.endsWith(QLatin1Char('/')))
        path += QLatin1Char('/');
    return QUrl::fromLocalFile(path);
}

QString specBodyHtml(const QString& markdown)
{
    const QList<MathSegment> segments = splitMath(markdown);
    const QString prefix = placeholderPrefix(markdown);
    QString withPlaceholders;
    QList<MathSegment> math;
    for (const MathSegment& s : segments) {
        if (s.kind == MathSegment::Kind::Text) {
            withPlaceholders += s.text;
        } else {
            // Letters and digits only: no Markdown syntax, one word, kept verbatim by the importer.
            withPlaceholders += prefix + QString::number(math.size()) + QLatin1Char('z');
            math.append(s);
        }
    }
    QTextDocument doc;
    doc.setMarkdown(withPlaceholders, QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                                      QTextDocument::MarkdownNoHTML));
    QString html = doc.toHtml();
    const qsizetype bodyTag = html.indexOf(QLatin1String("<body"));
    const qsizetype begin = bodyTag < 0 ? 0 : html.indexOf(QLatin1Char('>'), bodyTag) + 1;
    const qsizetype end = html.lastIndexOf(QLatin1String("</body>"));
    html = html.mid(begin, end < begin ? -1 : end - begin);

    const QRegularExpression placeholder(QRegularExpression::escape(prefix) + QStringLiteral("(\\d+)z"));
    html = neutraliseReferences(html, placeholder, math);
    return restoreMath(html, placeholder, math);
}

QString specPageHtml(const QString& markdown, const SpecPageOptions& options)
{
    const QByteArray script(kRenderScript);
    const QString scriptHash =
        QString::fromLatin1(QCryptographicHash::hash(script, QCryptographicHash::Sha256).toBase64());
    // Inline script: only ours, by hash. Inline style: Qt's importer and KaTeX both write style attributes.
    const QString csp = QStringLiteral("default-src 'none'; script-src file: 'sha256-") + scriptHash +
                        QStringLiteral("'; style-src file: 'unsafe-inline'; font-src file:; img-src 'none'");
    QString page = QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
                                  "<meta http-equiv=\"Content-Security-Policy\" content=\"") +
                   csp + QStringLiteral("\">\n");
    if (options.katexAvailable)
        page += QStringLiteral("<link rel=\"stylesheet\" href=\"katex.min.css\">\n"
                               "<script src=\"katex.min.js\"></script>\n");
    page += QStringLiteral("<style>") + QLatin1String(kStyle) + QStringLiteral("</style>\n</head><body>\n");
    QString body = specBodyHtml(markdown);
    if (!options.katexAvailable) {
        page += QStringLiteral("<div class=\"km-notice\">KaTeX was not found in <code>") +
                options.katexDir.toHtmlEscaped() +
                QStringLiteral("</code> (install the Debian package <code>libjs-katex</code>, or set "
                               "<code>KMOSAIC_KATEX_DIR</code>): formulas are shown as TeX source.</div>\n");
        body.replace(QLatin1String("class=\"km-math "), QLatin1String("class=\"km-math km-source "));
    }
    page += QStringLiteral("<main id=\"km-spec\">") + body + QStringLiteral("</main>\n");
    if (options.katexAvailable)
        page += QStringLiteral("<script>") + QString::fromLatin1(script) + QStringLiteral("</script>\n");
    return page + QStringLiteral("</body></html>\n");
}

}  // namespace km::ui
