// setMarkdown: Qt's Markdown import with long code fences spliced in.
#include "replay/MarkdownDocument.h"

#include <QStringList>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

namespace km::replay {

namespace {

// The fence character and length of a line that opens a fence at column 0 (``` or ~~~, at least three); 0 if none.
int fenceOpening(const QString& line, QChar* fenceChar)
{
    if (line.isEmpty() || (line[0] != QLatin1Char('`') && line[0] != QLatin1Char('~')))
        return 0;
    const QChar c = line[0];
    int n = 0;
    while (n < line.size() && line[n] == c)
        ++n;
    if (n < 3 || (c == QLatin1Char('`') && line.indexOf(c, n) >= 0))  // a backtick fence's info has no backtick
        return 0;
    *fenceChar = c;
    return n;
}

// Whether a line closes a fence of `n` `c`s: up to three spaces, at least n of c, then only spaces or tabs.
bool fenceClosing(const QString& line, QChar c, int n)
{
    qsizetype i = 0;
    while (i < 3 && i < line.size() && line[i] == QLatin1Char(' '))
        ++i;
    qsizetype k = i;
    while (k < line.size() && line[k] == c)
        ++k;
    if (k - i < n)
        return false;
    for (; k < line.size(); ++k)
        if (line[k] != QLatin1Char(' ') && line[k] != QLatin1Char('\t'))
            return false;
    return true;
}

QString placeholder(qsizetype k)
{
    return QStringLiteral("\u2063kmosaic spliced fence %1\u2063").arg(k);
}

}  // namespace

void setMarkdown(QTextDocument* doc, const QString& markdown)
{
    if (markdown.contains(QLatin1Char('\r'))) {
        doc->setMarkdown(markdown);
        return;
    }
    const QStringList lines = markdown.split(QLatin1Char('\n'));
    QStringList out;
    QList<QString> bodies;  // the text of each spliced fence, its lines joined by paragraph separators
    out.reserve(lines.size());
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString& line = lines[i];
        if (line.startsWith(QLatin1Char('<'))) {  // raw HTML: its blocks follow rules of their own
            doc->setMarkdown(markdown);
            return;
        }
        QChar c;
        const int n = fenceOpening(line, &c);
        out << line;
        if (n == 0)
            continue;
        qsizetype end = i + 1;
        bool tabs = false;
        for (; end < lines.size() && !fenceClosing(lines[end], c, n); ++end)
            tabs = tabs || lines[end].contains(QLatin1Char('\t'));
        if (end == lines.size()) {  // not closed: the fence runs to the end, as Qt reads it
            for (++i; i < lines.size(); ++i)
                out << lines[i];
            break;
        }
        if (end - i - 1 >= kSplicedFenceLines && !tabs) {
            out << placeholder(bodies.size());
            bodies << lines.mid(i + 1, end - i - 1).join(QChar::ParagraphSeparator);
        } else {
            out << lines.mid(i + 1, end - i - 1);
        }
        out << lines[end];
        i = end;
    }
    doc->setMarkdown(out.join(QLatin1Char('\n')));
    if (bodies.isEmpty())
        return;
    qsizetype next = 0;
    for (QTextBlock b = doc->begin(); b.isValid() && next < bodies.size(); b = b.next()) {
        if (b.text() != placeholder(next))
            continue;
        QTextCursor cursor(b);
        cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        const QTextCharFormat format = b.begin().fragment().charFormat();
        cursor.insertText(bodies[next], format);
        b = cursor.block();  // the fence's last line
        ++next;
    }
}

}  // namespace km::replay
