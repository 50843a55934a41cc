// Splitting Markdown into text and math on the shapes real specs use, the HTML fragment that keeps TeX intact,
// and the page that references only local KaTeX files.
#include "render/MathSegments.h"
#include "render/SpecHtml.h"

#include <QDir>
#include <QRegularExpression>
#include <QtTest>

using namespace km::ui;
using Kind = MathSegment::Kind;

namespace {

// "T:text|I:tex|D:tex", the compact form of the expected rows.
QString describe(const QList<MathSegment>& segments)
{
    QStringList parts;
    for (const MathSegment& s : segments)
        parts.append((s.kind == Kind::Text ? "T:" : s.kind == Kind::InlineMath ? "I:" : "D:") + s.text);
    return parts.join(QLatin1Char('|'));
}

QString readSpec(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QStringList realSpecs()
{
    QStringList paths;
    const QDir tasks(QStringLiteral(KMOSAIC_TASKS_DIR));
    for (const QString& id : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (QFile::exists(tasks.filePath(id + "/spec.md")))
            paths.append(tasks.filePath(id + "/spec.md"));
    return paths;
}

int mathCount(const QList<MathSegment>& segments)
{
    return int(std::count_if(segments.cbegin(), segments.cend(), [](const auto& s) { return s.kind != Kind::Text; }));
}

}  // namespace

class TestMathMarkdown : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splits_data()
    {
        QTest::addColumn<QString>("markdown");
        QTest::addColumn<QString>("expected");
        QTest::newRow("inline") << "Let $x_i$ be"
                                << "T:Let |I:x_i|T: be";
        QTest::newRow("display one line") << "a $$\\sum_k x_k$$ b"
                                          << "T:a |D:\\sum_k x_k|T: b";
        QTest::newRow("display multi-line") << "row\n\n$$\nm_i = \\max_{k} X_{ik},\n$$\n\nnext"
                                            << "T:row\n\n|D:\nm_i = \\max_{k} X_{ik},\n|T:\n\nnext";
        QTest::newRow("display two lines of TeX") << "$$\nS = a, \\qquad\nP = b\n$$"
                                                  << "D:\nS = a, \\qquad\nP = b\n";
        QTest::newRow("escaped dollar") << "costs \\$5, and $y$"
                                        << "T:costs \\$5, and |I:y";
        QTest::newRow("escaped dollar in math") << "$a\\$b$ c"
                                                << "I:a\\$b|T: c";
        QTest::newRow("escaped backslash then math") << "\\\\$x$"
                                                     << "T:\\\\|I:x";
        QTest::newRow("code span") << "use `$x$` or $y$"
                                   << "T:use `$x$` or |I:y";
        QTest::newRow("double backtick code span") << "``a ` $x$`` $z$"
                                                   << "T:``a ` $x$`` |I:z";
        QTest::newRow("unclosed backtick is literal") << "a ` b $x$"
                                                      << "T:a ` b |I:x";
        QTest::newRow("fenced code") << "```python\nx = $y$\n```\n$z$"
                                     << "T:```python\nx = $y$\n```\n|I:z";
        QTest::newRow("tilde fence") << "~~~\n$$a$$\n~~~\n"
                                     << "T:~~~\n$$a$$\n~~~\n";
        QTest::newRow("unclosed fence runs to the end") << "```\n$a$\n"
                                                        << "T:```\n$a$\n";
        QTest::newRow("indented code") << "text\n\n    $a$ = 1\n\n$b$"
                                       << "T:text\n\n    $a$ = 1\n\n|I:b";
        QTest::newRow("indented list continuation is not code") << "- item\n\n    more $a$\n"
                                                                << "T:- item\n\n    more |I:a|T:\n";
        QTest::newRow("unbalanced dollar") << "a $x and b"
                                           << "T:a $x and b";
        QTest::newRow("unbalanced display") << "a $$x and b"
                                            << "T:a $$x and b";
        QTest::newRow("prices stay text") << "from $5 to $10 each"
                                          << "T:from $5 to $10 each";
        QTest::newRow("space after opening") << "a $ x$ b"
                                             << "T:a $ x$ b";
        QTest::newRow("closing before digit") << "$x$1 b"
                                              << "T:$x$1 b";
        QTest::newRow("adjacent formulas") << "$a$$b$"
                                           << "I:a|I:b";
        QTest::newRow("adjacent with comma") << "$a$, $b$"
                                             << "I:a|T:, |I:b";
        QTest::newRow("display then inline") << "$$a$$ $b$"
                                             << "D:a|T: |I:b";
        QTest::newRow("underscores and stars kept") << "$a_i * b_j$ and $c_k * d_l$"
                                                    << "I:a_i * b_j|T: and |I:c_k * d_l";
        QTest::newRow("texttt with escaped underscore") << "$B = \\texttt{batch\\_size}$"
                                                        << "I:B = \\texttt{batch\\_size}";
        QTest::newRow("inline across a line break") << "a $x +\ny$ b"
                                                    << "T:a |I:x +\ny|T: b";
        QTest::newRow("no math across a blank line") << "a $x\n\ny$ b"
                                                     << "T:a $x\n\ny$ b";
        QTest::newRow("empty display is text") << "a $$ $$ b"
                                               << "T:a $$ $$ b";
        QTest::newRow("math in list") << "- $x \\in \\mathbb{R}^{B}$, input;"
                                      << "T:- |I:x \\in \\mathbb{R}^{B}|T:, input;";
        QTest::newRow("math in table") << "| a | $|x|$ |\n|---|---|"
                                       << "T:| a | |I:|x||T: |\n|---|---|";
        QTest::newRow("braces with dollar") << "$\\{r, z, n\\}$"
                                            << "I:\\{r, z, n\\}";
        QTest::newRow("empty") << ""
                               << "";
    }

    void splits()
    {
        QFETCH(QString, markdown);
        QFETCH(QString, expected);
        const QList<MathSegment> segments = splitMath(markdown);
        QCOMPARE(describe(segments), expected);
        QString back;
        for (const MathSegment& s : segments)
            back += toMarkdown(s);
        QCOMPARE(back, markdown);
    }

    // Every bundled spec: the split gives the file back, finds math, and no formula spans a paragraph.
    void realSpecsSplitLosslessly()
    {
        const QStringList specs = realSpecs();
        QVERIFY2(specs.size() >= 20, qPrintable(QString::number(specs.size())));
        for (const QString& path : specs) {
            const QString md = readSpec(path);
            const QList<MathSegment> segments = splitMath(md);
            QString back;
            for (const MathSegment& s : segments) {
                back += toMarkdown(s);
                if (s.kind != Kind::Text)
                    QVERIFY2(!s.text.contains(QRegularExpression("\\n\\s*\\n")), qPrintable(path));
            }
            QCOMPARE(back, md);
            QVERIFY2(mathCount(segments) >= 2, qPrintable(path));
        }
    }

    void softmaxSpecShape()
    {
        const auto segments = splitMath(readSpec(QStringLiteral(KMOSAIC_TASKS_DIR "/softmax-rows/spec.md")));
        QCOMPARE(mathCount(segments), 10);
        int display = 0;
        for (const auto& s : segments)
            display += s.kind == Kind::DisplayMath;
        QCOMPARE(display, 2);
        QVERIFY(segments.contains(MathSegment{Kind::InlineMath, "B = \\texttt{batch\\_size}"}));
    }

    void htmlKeepsTexIntact()
    {
        const QString html = specBodyHtml("# Title $x$\n\nLet $a_i * b_j$ and $c_k * d_l$, **bold**, `$code$`.\n\n"
                                          "$$\nY_{ij} = \\frac{a}{b} \\quad x < y\n$$\n");
        QVERIFY2(html.contains("<span class=\"km-math km-inline\">a_i * b_j</span>"), qPrintable(html));
        QVERIFY(html.contains("<span class=\"km-math km-inline\">c_k * d_l</span>"));
        QVERIFY(html.contains("<span class=\"km-math km-inline\">x</span>"));
        QVERIFY(html.contains("<span class=\"km-math km-display\">\nY_{ij} = \\frac{a}{b} \\quad x &lt; y\n</span>"));
        QVERIFY(!html.contains("italic"));  // the underscores and stars made no emphasis
        QVERIFY(html.contains("font-weight:700;\">bold"));
        QVERIFY(html.contains("$code$"));  // literal inside a code span
        QVERIFY(!html.contains("kmmath"));
        QVERIFY(!html.contains("<h1") || html.indexOf("km-math") > html.indexOf("<h1"));
    }

    // KaTeX's inline blocks allow a line break right after a formula: punctuation is glued to it.
    void htmlGluesPunctuationToInlineMath()
    {
        const QString html = specBodyHtml("defaults ($s = 2$, with $K = 5$). And\n\n$$x$$.\n");
        QVERIFY2(html.contains("<span class=\"km-glue\">(<span class=\"km-math km-inline\">s = 2</span>,</span>"),
                 qPrintable(html));
        QVERIFY(html.contains("<span class=\"km-glue\"><span class=\"km-math km-inline\">K = 5</span>).</span>"));
        QVERIFY(html.contains("<span class=\"km-math km-display\">x</span>."));  // display math is a block
    }

    void htmlShowsRawHtmlAsText()
    {
        const QString html = specBodyHtml("<script>alert(1)</script> and <b>$x$</b>");
        QVERIFY(!html.contains("<script"));
        QVERIFY(html.contains("&lt;script&gt;"));
        QVERIFY(html.contains("<span class=\"km-math km-inline\">x</span>"));
    }

    void placeholderCannotCollide()
    {
        const QString html = specBodyHtml("kmmath0z and kmmathq0z and $y$");
        QVERIFY2(html.contains("kmmath0z and kmmathq0z and <span class=\"km-math km-inline\">y</span>"),
                 qPrintable(html));
    }

    // Links and images stay visible as text but reference nothing; the page references only KaTeX's files.
    void pageReferencesOnlyLocalFiles()
    {
        const QString md = readSpec(QStringLiteral(KMOSAIC_TASKS_DIR "/softmax-rows/spec.md")) +
                           "\n\nSee [the paper](https://example.com/p?$x$) and ![plot](http://example.com/a.png), "
                           "www.example.org, <img src=\"http://example.com/b.png\">.\n";
        const QString dir = QStringLiteral("/usr/share/javascript/katex");
        const QString page = specPageHtml(md, {dir, true});
        QVERIFY(page.contains("the paper"));
        QVERIFY(page.contains("[image: plot]"));
        const QUrl base = katexBaseUrl(dir);
        QCOMPARE(base.toString(), QStringLiteral("file:///usr/share/javascript/katex/"));
        // Attributes (text can hold no literal quote: it is escaped) and CSS url(...).
        static const QRegularExpression refs("\\s(?:src|href)\\s*=\\s*[\"']([^\"']*)|url\\(\\s*[\"']?([^\"')]+)");
        QStringList found;
        for (auto it = refs.globalMatch(page); it.hasNext();) {
            const auto m = it.next();
            const QUrl url = base.resolved(QUrl(m.captured(1).isEmpty() ? m.captured(2) : m.captured(1)));
            QVERIFY2(url.isLocalFile() && url.toLocalFile().startsWith(dir + "/"), qPrintable(url.toString()));
            found.append(url.fileName());
        }
        found.sort();
        QVERIFY(page.contains("&lt;img src=&quot;http://example.com/b.png&quot;&gt;"));  // raw HTML shown as text
        QCOMPARE(found, (QStringList{"katex.min.css", "katex.min.js"}));
        QVERIFY(page.contains("Content-Security-Policy"));
        QVERIFY(page.contains("throwOnError: false"));
    }

    void pageWithoutKatexSaysSo()
    {
        const QString page = specPageHtml("$x$", {"/nonexistent/katex", false});
        QVERIFY(!page.contains("katex.min.js"));
        QVERIFY(page.contains("KaTeX was not found in <code>/nonexistent/katex</code>"));
        QVERIFY(page.contains("<span class=\"km-math km-source km-inline\">x</span>"));
        QVERIFY(!hasKatex("/nonexistent/katex"));
    }

    void katexDirectory()
    {
        qputenv("KMOSAIC_KATEX_DIR", "/elsewhere/katex");
        QCOMPARE(defaultKatexDir(), QStringLiteral("/elsewhere/katex"));
        qunsetenv("KMOSAIC_KATEX_DIR");
        QVERIFY(!defaultKatexDir().isEmpty() && defaultKatexDir() != "/elsewhere/katex");
        if (!hasKatex(defaultKatexDir()))
            QSKIP("libjs-katex is not installed");
        QVERIFY(hasKatex(defaultKatexDir()));
    }
};

QTEST_MAIN(TestMathMarkdown)
#include "test_math_markdown.moc"
