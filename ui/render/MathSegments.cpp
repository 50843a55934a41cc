#include "render/MathSegments.h"

namespace km::ui {

namespace {

int indentColumns(QStringView line, qsizetype* chars = nullptr)
{
    int col = 0;
    qsizetype i = 0;
    for (; i < line.size(); ++i) {
        if (line[i] == u' ')
            ++col;
        else if (line[i] == u'\t')
            col += 4 - col % 4;
        else
            break;
    }
    if (chars)
        *chars = i;
    return col;
}

bool isBlank(QStringView line)
{
    return line.trimmed().isEmpty();
}

struct Fence {
    QChar ch;
    qsizetype length = 0;
};

Fence fenceOf(QStringView line, int maxIndent)
{
    qsizetype skip = 0;
    if (indentColumns(line, &skip) > maxIndent)
        return {};
    const QStringView rest = line.mid(skip);
    if (rest.isEmpty() || (rest[0] != u'`' && rest[0] != u'~'))
        return {};
    qsizetype n = 0;
    while (n < rest.size() && rest[n] == rest[0])
        ++n;
    if (n < 3 || (rest[0] == u'`' && rest.mid(n).contains(u'`')))
        return {};
    return {rest[0], n};
}

bool closesFence(QStringView line, Fence open, int maxIndent)
{
    const Fence f = fenceOf(line, maxIndent);
    if (f.ch != open.ch || f.length < open.length)
        return false;
    qsizetype skip = 0;
    indentColumns(line, &skip);
    return isBlank(line.mid(skip + f.length));
}

// "- item", "* item", "+ item", "1. item", "1) item", indented by at most three columns.
bool isListItem(QStringView line)
{
    qsizetype i = 0;
    if (indentColumns(line, &i) > 3 || i >= line.size())
        return false;
    if (line[i] == u'-' || line[i] == u'*' || line[i] == u'+') {
        ++i;
    } else {
        const qsizetype digits = i;
        while (i < line.size() && line[i].isDigit() && i - digits < 9)
            ++i;
        if (i == digits || i >= line.size() || (line[i] != u'.' && line[i] != u')'))
            return false;
        ++i;
    }
    return i == line.size() || line[i] == u' ' || line[i] == u'\t';
}

struct Range {
    qsizetype begin;
    qsizetype end;
    bool literal;  // code: `$` means nothing there
};

// Marks fenced and indented code blocks, line by line; the rest is "flow" where code spans and math live.
QList<Range> classifyLines(const QString& s)
{
    QList<Range> ranges;
    auto add = [&](qsizetype b, qsizetype e, bool literal) {
        if (!ranges.isEmpty() && ranges.last().literal == literal && ranges.last().end == b)
            ranges.last().end = e;
        else
            ranges.append({b, e, literal});
    };
    Fence fence;
    int fenceIndent = 3;
    bool prevBlank = true, prevCode = false, inList = false;
    for (qsizetype b = 0; b < s.size();) {
        qsizetype nl = s.indexOf(u'\n', b);
        const qsizetype e = nl < 0 ? s.size() : nl + 1;
        const QStringView line = QStringView(s).mid(b, (nl < 0 ? s.size() : nl) - b);
        const bool blank = isBlank(line);
        const int indent = indentColumns(line);
        bool literal = false;
        if (fence.length > 0) {
            literal = true;
            if (closesFence(line, fence, fenceIndent))
                fence = {};
        } else if (Fence f = fenceOf(line, inList ? 1000 : 3); f.length > 0) {
            literal = true;
            fence = f;
            fenceIndent = inList ? 1000 : 3;
        } else if (!blank && indent >= 4 && (prevBlank || prevCode) && !inList) {
            literal = true;  // an indented code block; inside lists, indentation means continuation instead
        }
        if (!blank)
            prevCode = literal && fence.length == 0 && indent >= 4;
        if (!literal && isListItem(line))
            inList = true;
        else if (!blank && indent == 0 && prevBlank && !literal)
            inList = false;
        prevBlank = blank;
        add(b, e, literal);
        b = e;
    }
    return ranges;
}

bool isAsciiPunct(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= 33 && u <= 47) || (u >= 58 && u <= 64) || (u >= 91 && u <= 96) || (u >= 123 && u <= 126);
}

// Splits one flow range: code spans, escapes, $$...$$ and $...$.
class FlowScanner {
public:
    FlowScanner(const QString& s, qsizetype end, QList<MathSegment>& out) : m_s(s), m_end(end), m_out(out) {}

    void scan(qsizetype i)
    {
        qsizetype textStart = i;
        while (i < m_end) {
            const QChar c = m_s[i];
            if (c == u'\\' && i + 1 < m_end && isAsciiPunct(m_s[i + 1])) {
                i += 2;
            } else if (c == u'`') {
                const qsizetype n = runLength(i, u'`');
                const qsizetype close = findBackticks(i + n, n);
                i = close < 0 ? i + n : close + n;
            } else if (c == u'$' && i + 1 < m_end && m_s[i + 1] == u'$') {
                const qsizetype close = findDisplayClose(i + 2);
                if (close < 0 || isBlank(QStringView(m_s).mid(i + 2, close - i - 2))) {
                    i = close < 0 ? i + 2 : close + 2;
                    continue;
                }
                emitText(textStart, i);
                m_out.append({MathSegment::Kind::DisplayMath, m_s.mid(i + 2, close - i - 2)});
                i = textStart = close + 2;
            } else if (c == u'$' && i + 1 < m_end && !m_s[i + 1].isSpace()) {
                const qsizetype close = findInlineClose(i + 1);
                if (close < 0) {
                    ++i;
                    continue;
                }
                emitText(textStart, i);
                m_out.append({MathSegment::Kind::InlineMath, m_s.mid(i + 1, close - i - 1)});
                i = textStart = close + 1;
            } else {
                ++i;
            }
        }
        emitText(textStart, m_end);
    }

private:
    qsizetype runLength(qsizetype i, QChar c) const
    {
        qsizetype n = 0;
        while (i + n < m_end && m_s[i + n] == c)
            ++n;
        return n;
    }

    // At a newline: does a blank line (or the end of this flow range) follow? Nothing inline crosses one.
    bool paragraphEndsAt(qsizetype nl) const
    {
        for (qsizetype k = nl + 1; k < m_end && m_s[k] != u'\n'; ++k)
            if (!m_s[k].isSpace())
                return false;
        return true;
    }

    qsizetype findBackticks(qsizetype j, qsizetype n) const
    {
        while (j < m_end) {
            if (m_s[j] == u'`') {
                const qsizetype m = runLength(j, u'`');
                if (m == n)
                    return j;
                j += m;
            } else if (m_s[j] == u'\n' && paragraphEndsAt(j)) {
                return -1;
            } else {
                ++j;
            }
        }
        return -1;
    }

    qsizetype findDisplayClose(qsizetype j) const
    {
        while (j < m_end) {
            if (m_s[j] == u'\\')
                j += 2;
            else if (m_s[j] == u'\n' && paragraphEndsAt(j))
                return -1;
            else if (m_s[j] == u'$' && j + 1 < m_end && m_s[j + 1] == u'$')
                return j;
            else
                ++j;
        }
        return -1;
    }

    qsizetype findInlineClose(qsizetype j) const
    {
        while (j < m_end) {
            if (m_s[j] == u'\\')
                j += 2;
            else if (m_s[j] == u'\n' && paragraphEndsAt(j))
                return -1;
            else if (m_s[j] == u'$' && !m_s[j - 1].isSpace() && !(j + 1 < m_end && m_s[j + 1].isDigit()))
                return j;
            else
                ++j;
        }
        return -1;
    }

    void emitText(qsizetype b, qsizetype e)
    {
        if (e <= b)
            return;
        if (!m_out.isEmpty() && m_out.last().kind == MathSegment::Kind::Text)
            m_out.last().text += QStringView(m_s).mid(b, e - b);
        else
            m_out.append({MathSegment::Kind::Text, m_s.mid(b, e - b)});
    }

    const QString& m_s;
    qsizetype m_end;
    QList<MathSegment>& m_out;
};

}  // namespace

QList<MathSegment> splitMath(const QString& markdown)
{
    QList<MathSegment> out;
    for (const Range& r : classifyLines(markdown)) {
        if (r.literal) {
            if (!out.isEmpty() && out.last().kind == MathSegment::Kind::Text)
                out.last().text += QStringView(markdown).mid(r.begin, r.end - r.begin);
            else
                out.append({MathSegment::Kind::Text, markdown.mid(r.begin, r.end - r.begin)});
        } else {
            FlowScanner(markdown, r.end, out).scan(r.begin);
        }
    }
    return out;
}

QString toMarkdown(const MathSegment& segment)
{
    switch (segment.kind) {
    case MathSegment::Kind::Text: return segment.text;
    case MathSegment::Kind::InlineMath: return QLatin1Char('$') + segment.text + QLatin1Char('$');
    case MathSegment::Kind::DisplayMath: return QLatin1String("$$") + segment.text + QLatin1String("$$");
    }
    return segment.text;
}

}  // namespace km::ui
