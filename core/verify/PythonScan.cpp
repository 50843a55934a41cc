#include "verify/PythonScan.h"

#include "verify/Identifiers.h"

#include <QHash>
#include <QSet>

namespace km {

namespace {

bool isStringPrefix(const QString& name)
{
    static const QSet<QString> prefixes{"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    return prefixes.contains(name.toLower());
}

// Operators of more than one character, longest first so "**=" wins over "**".
const QStringList& longOperators()
{
    static const QStringList ops{"**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "+=",
                                 "-=",  "*=",  "/=",  "%=",  "&=",  "|=", "^=", "@=", "**", "//", "<<", ">>"};
    return ops;
}

class Tokenizer {
public:
    explicit Tokenizer(const QString& s) : m_s(s) {}

    PyScan run()
    {
        while (m_i < m_s.size()) {
            const QChar c = m_s[m_i];
            if (c == QLatin1Char('\n')) {
                if (m_depth == 0)
                    endLogicalLine();
                newPhysicalLine(m_i + 1);
            } else if (c == QLatin1Char('\\') && m_s.mid(m_i + 1, 1) == QLatin1String("\n")) {
                newPhysicalLine(m_i + 2);  // explicit line joining
            } else if (c == QLatin1Char('\\') && m_s.mid(m_i + 1, 2) == QLatin1String("\r\n")) {
                newPhysicalLine(m_i + 3);
            } else if (c == QLatin1Char('#')) {
                while (m_i + 1 < m_s.size() && m_s[m_i + 1] != QLatin1Char('\n'))
                    ++m_i;
            } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                string(m_i, false);
                continue;
            } else if (c.isDigit() || (c == QLatin1Char('.') && m_i + 1 < m_s.size() && m_s[m_i + 1].isDigit())) {
                number();
                continue;
            } else if (isIdentifierStart(c)) {
                name();
                continue;
            } else if (!c.isSpace()) {
                op();
                continue;
            }
            ++m_i;
        }
        endLogicalLine();
        if (m_depth > 0 && m_out.errorLine == 0)
            m_out.errorLine = m_line;  // an unclosed bracket: Python reports it at the end
        return std::move(m_out);
    }

private:
    void newPhysicalLine(qsizetype next)
    {
        ++m_line;
        m_lineBegin = next;
        m_i = next - 1;  // the main loop steps past the newline
    }

    void endLogicalLine()
    {
        if (!m_atLogicalStart)
            push(PyToken::Kind::Newline, QString(), m_line);
        m_atLogicalStart = true;
    }

    int column(qsizetype at) const
    {
        int col = 0;
        for (qsizetype k = m_lineBegin; k < at && k < m_s.size(); ++k)
            col = m_s[k] == QLatin1Char('\t') ? (col / 8 + 1) * 8 : col + 1;
        return col;
    }

    PyToken& push(PyToken::Kind kind, const QString& text, int line)
    {
        if (m_atLogicalStart && kind != PyToken::Kind::Newline)
            m_indent = column(m_tokenStart);
        m_atLogicalStart = false;
        PyToken t;
        t.kind = kind;
        t.text = text;
        t.line = line;
        t.indent = m_indent;
        t.depth = m_depth;
        m_out.tokens.append(t);
        return m_out.tokens.last();
    }

    void name()
    {
        m_tokenStart = m_i;
        qsizetype j = m_i;
        while (j < m_s.size() && isIdentifierChar(m_s[j]))
            ++j;
        const QString word = m_s.mid(m_i, j - m_i);
        if (j < m_s.size() && (m_s[j] == QLatin1Char('"') || m_s[j] == QLatin1Char('\'')) && isStringPrefix(word)) {
            m_i = j;
            string(m_tokenStart, word.contains(QLatin1Char('r'), Qt::CaseInsensitive));
            return;
        }
        push(PyToken::Kind::Name, word, m_line);
        m_i = j;
    }

    void number()
    {
        m_tokenStart = m_i;
        qsizetype j = m_i;
        while (j < m_s.size() && (isIdentifierChar(m_s[j]) || m_s[j] == QLatin1Char('.') ||
                                  ((m_s[j] == QLatin1Char('+') || m_s[j] == QLatin1Char('-')) &&
                                   (m_s[j - 1] == QLatin1Char('e') || m_s[j - 1] == QLatin1Char('E')))))
            ++j;
        push(PyToken::Kind::Number, m_s.mid(m_i, j - m_i), m_line);
        m_i = j;
    }

    // A string literal whose quote is at m_i (its prefix, if any, starts at `start`).
    void string(qsizetype start, bool raw)
    {
        if (start == m_i)
            m_tokenStart = m_i;
        const QChar q = m_s[m_i];
        const QString closing(m_s.mid(m_i, 3) == QString(3, q) ? 3 : 1, q);
        const bool triple = closing.size() == 3;
        const int startLine = m_line;
        const qsizetype contentBegin = m_i + closing.size();
        qsizetype j = contentBegin;
        qsizetype contentEnd = -1;
        while (j < m_s.size()) {
            if (m_s[j] == QLatin1Char('\\')) {  // even a raw string cannot end at an escaped quote
                if (j + 1 < m_s.size() && m_s[j + 1] == QLatin1Char('\n'))
                    newLineInString(j + 2);
                j += 2;
                continue;
            }
            if (m_s.mid(j, closing.size()) == closing) {
                contentEnd = j;
                j += closing.size();
                break;
            }
            if (m_s[j] == QLatin1Char('\n')) {
                if (!triple)
                    break;  // unterminated one-line string: it ends with its line
                newLineInString(j + 1);
            }
            ++j;
        }
        if (contentEnd < 0) {
            if (m_out.errorLine == 0)
                m_out.errorLine = startLine;
            contentEnd = qMin(j, m_s.size());
        }
        PyToken& t = push(PyToken::Kind::String, m_s.mid(contentBegin, contentEnd - contentBegin), startLine);
        t.triple = triple;
        t.raw = raw;
        m_i = qMin(j, m_s.size());
    }

    void newLineInString(qsizetype next)
    {
        ++m_line;
        m_lineBegin = next;
    }

    void op()
    {
        m_tokenStart = m_i;
        QString text(m_s[m_i]);
        for (const QString& o : longOperators()) {
            if (m_s.mid(m_i, o.size()) == o) {
                text = o;
                break;
            }
        }
        const QChar c = text[0];
        const bool opens =
            text.size() == 1 && (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{'));
        const bool closes =
            text.size() == 1 && (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}'));
        if (closes)
            m_depth = qMax(0, m_depth - 1);
        push(PyToken::Kind::Op, text, m_line);
        if (opens)
            ++m_depth;
        m_i += text.size();
    }

    const QString& m_s;
    PyScan m_out;
    qsizetype m_i = 0;
    qsizetype m_lineBegin = 0;
    qsizetype m_tokenStart = 0;
    int m_line = 1;
    int m_depth = 0;
    int m_indent = 0;
    bool m_atLogicalStart = true;
};

// Finds class, def and try blocks with their handlers; the logical lines are the Newline-separated token runs.
QList<PyBlock> findBlocks(const QList<PyToken>& t)
{
    QList<PyBlock> blocks;
    QHash<int, int> lastTryAtIndent;  // indent → index in blocks of the latest try (or its handler) at that indent
    qsizetype lineBegin = 0;
    while (lineBegin < t.size()) {
        qsizetype lineEnd = lineBegin;
        while (lineEnd < t.size() && t[lineEnd].kind != PyToken::Kind::Newline)
            ++lineEnd;
        qsizetype kw = lineBegin;
        if (isToken(t, kw, QStringLiteral("async")))
            ++kw;
        static const QHash<QString, PyBlock::Kind> kinds{
            {"class", PyBlock::Kind::Class},   {"def", PyBlock::Kind::Def},   {"try", PyBlock::Kind::Try},
            {"except", PyBlock::Kind::Except}, {"else", PyBlock::Kind::Else}, {"finally", PyBlock::Kind::Finally}};
        const int indent = lineBegin < t.size() ? t[lineBegin].indent : 0;
        if (kw < lineEnd && t[kw].kind == PyToken::Kind::Name && kinds.contains(t[kw].text)) {
            PyBlock b;
            b.kind = kinds.value(t[kw].text);
            b.header = int(kw);
            b.line = t[kw].line;
            const bool handler =
                b.kind == PyBlock::Kind::Except || b.kind == PyBlock::Kind::Else || b.kind == PyBlock::Kind::Finally;
            const int tryIndex = lastTryAtIndent.value(indent, -1);
            if (handler && tryIndex >= 0)
                b.tryHeader =
                    blocks[tryIndex].kind == PyBlock::Kind::Try ? blocks[tryIndex].header : blocks[tryIndex].tryHeader;
            if (b.kind == PyBlock::Kind::Class || b.kind == PyBlock::Kind::Def)
                b.name = kw + 1 < lineEnd ? t[kw + 1].text : QString();
            qsizetype colon = kw + 1;
            while (colon < lineEnd && !(t[colon].text == QLatin1String(":") && t[colon].depth == t[kw].depth &&
                                        t[colon].kind == PyToken::Kind::Op))
                ++colon;
            if (colon + 1 < lineEnd) {  // a body on the header's line
                b.begin = int(colon + 1);
                b.end = int(lineEnd);
            } else {
                b.begin = int(qMin(lineEnd + 1, t.size()));
                qsizetype e = b.begin;
                while (e < t.size() && !(t[e].indent <= indent && (e == 0 || t[e - 1].kind == PyToken::Kind::Newline)))
                    ++e;
                b.end = int(e);
            }
            if (!handler || b.tryHeader >= 0) {  // an else of if/for/while is no block here
                blocks.append(b);
                if (b.kind == PyBlock::Kind::Try || handler)
                    lastTryAtIndent.insert(indent, int(blocks.size() - 1));
            }
            if (!handler && b.kind != PyBlock::Kind::Try)
                lastTryAtIndent.remove(indent);
        } else if (lineBegin < lineEnd) {
            lastTryAtIndent.remove(indent);  // any other statement ends a try statement at its indentation
        }
        lineBegin = lineEnd + 1;
    }
    return blocks;
}

}  // namespace

bool isToken(const QList<PyToken>& t, qsizetype i, const QString& text)
{
    return i >= 0 && i < t.size() && t[i].kind != PyToken::Kind::String && t[i].kind != PyToken::Kind::Number &&
           t[i].text == text;
}

qsizetype closingBracket(const QList<PyToken>& t, qsizetype open)
{
    for (qsizetype k = open + 1; k < t.size(); ++k)
        if (t[k].kind == PyToken::Kind::Op && t[k].depth == t[open].depth &&
            (t[k].text == QLatin1String(")") || t[k].text == QLatin1String("]") || t[k].text == QLatin1String("}")))
            return k;
    return t.size();
}

bool isPythonKeyword(const QString& name)
{
    static const QSet<QString> keywords{"False",  "None",   "True",    "and",      "as",       "assert", "async",
                                        "await",  "break",  "class",   "continue", "def",      "del",    "elif",
                                        "else",   "except", "finally", "for",      "from",     "global", "if",
                                        "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
                                        "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
    return keywords.contains(name);
}

PyScan scanPython(const QString& source)
{
    PyScan scan = Tokenizer(source).run();
    scan.blocks = findBlocks(scan.tokens);
    return scan;
}

}  // namespace km
