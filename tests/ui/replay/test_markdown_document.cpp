// replay::setMarkdown makes the document QTextDocument::setMarkdown makes: the same blocks, texts and formats
// (compared through toHtml and block by block), with long fences spliced in or not.
#include "ReplayFixture.h"
#include "replay/MarkdownDocument.h"

#include <QTextBlock>
#include <QTextDocument>
#include <QtTest>

using namespace km;
using namespace km::replay;

namespace {
QString code(int lines, const QString& tag)
{
    QStringList l;
    for (int i = 0; i < lines; ++i)
        l << QStringLiteral("    y[i] = 0.5f * x[i];  # %1 %2 `q` *not emphasis* <b>").arg(tag).arg(i);
    return l.join(QLatin1Char('\n'));
}

void compareDocuments(const QString& markdown)
{
    QTextDocument qt;
    qt.setMarkdown(markdown);
    QTextDocument ours;
    setMarkdown(&ours, markdown);
    QCOMPARE(ours.blockCount(), qt.blockCount());
    for (QTextBlock a = ours.begin(), b = qt.begin(); a.isValid() && b.isValid(); a = a.next(), b = b.next()) {
        QCOMPARE(a.text(), b.text());
        QVERIFY2(a.blockFormat() == b.blockFormat(), qPrintable(a.text()));
        QVERIFY2(a.charFormat() == b.charFormat(), qPrintable(a.text()));
        auto fa = a.begin(), fb = b.begin();
        for (; !fa.atEnd() && !fb.atEnd(); ++fa, ++fb) {
            QCOMPARE(fa.fragment().text(), fb.fragment().text());
            QVERIFY2(fa.fragment().charFormat() == fb.fragment().charFormat(), qPrintable(a.text()));
        }
        QCOMPARE(fa.atEnd(), fb.atEnd());
    }
    QCOMPARE(ours.toHtml(), qt.toHtml());
    QCOMPARE(ours.toPlainText(), qt.toPlainText());
}
}  // namespace

class TestMarkdownDocument : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameDocumentAsQt_data()
    {
        QTest::addColumn<QString>("markdown");
        const QString longCode = code(kSplicedFenceLines + 60, QStringLiteral("a"));
        QTest::newRow("long fence") << QStringLiteral("Here:\n\n```python\n%1\n```\n\nDone.\n").arg(longCode);
        QTest::newRow("two long fences, a short one, a list")
            << QStringLiteral("# Title\n\n- one\n- two\n```\n%1\n```\ntext\n~~~cpp\n%2\n~~~~\n\n```\nx = 1\n```\n")
                   .arg(longCode, code(kSplicedFenceLines, QStringLiteral("b")));
        QTest::newRow("empty lines in a fence")
            << QStringLiteral("```python\n%1\n\n\n%1\n\n```").arg(code(kSplicedFenceLines, QStringLiteral("c")));
        QTest::newRow("closing fence indented, longer") << QStringLiteral("```\n%1\n  `````  \nafter").arg(longCode);
        QTest::newRow("fence not closed") << QStringLiteral("text\n```python\n%1\n").arg(longCode);
        QTest::newRow("info fence inside") << QStringLiteral("```\n%1\n```python\n%1\n```\n").arg(longCode);
        QTest::newRow("tabs") << QStringLiteral("```\n\t%1\n```\n").arg(longCode);
        QTest::newRow("carriage returns") << QStringLiteral("```\r\n%1\r\n```\r\n").arg(longCode);
        QTest::newRow("raw html") << QStringLiteral("<div>\n\n```\n%1\n```\n</div>\n").arg(longCode);
        QTest::newRow("no fence") << QStringLiteral("*a* and **b**\n\n> quoted\n");
        QTest::newRow("empty") << QString();
    }

    void sameDocumentAsQt()
    {
        QFETCH(QString, markdown);
        compareDocuments(markdown);
    }

    void sameDocumentForTheDemonstrations()
    {
        for (const test::ReplayRun& run : test::demonstrations())
            for (const StepDetail& d : run.details) {
                compareDocuments(d.step.prompt);
                compareDocuments(d.step.reply);
                // as a long reply: the step's code many times over in one fence
                compareDocuments(QStringLiteral("Reply\n\n```python\n%1%1%1\n```\n").arg(d.step.code));
            }
    }
};

QTEST_MAIN(TestMarkdownDocument)
#include "test_markdown_document.moc"
