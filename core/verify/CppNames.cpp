#include "verify/CppNames.h"

#include "verify/Identifiers.h"
#include "verify/InlineSourceMap.h"

namespace km {

namespace {

// One-line Python strings: the simple escapes decoded (a "\n" in the value stays on the token's line).
QString decodeOneLine(const QString& raw, bool isRaw)
{
    if (isRaw)
        return raw;
    QString out;
    for (qsizetype i = 0; i < raw.size(); ++i) {
        if (raw[i] != QLatin1Char('\\') || i + 1 >= raw.size()) {
            out.append(raw[i]);
            continue;
        }
        const QChar c = raw[++i];
        out.append(c == QLatin1Char('n')   ? QChar(QLatin1Char('\n'))
                   : c == QLatin1Char('t') ? QChar(QLatin1Char('\t'))
                                           : c);
    }
    return out;
}

qsizetype skipSpaces(const QString& s, qsizetype i)
{
    while (i < s.size() && s[i].isSpace())
        ++i;
    return i;
}

// Past template arguments opening at s[i] == '<'; i itself when they do not close soon (a comparison, a shift).
qsizetype skipTemplateArguments(const QString& s, qsizetype i)
{
    int depth = 0;
    for (qsizetype k = i; k < s.size() && k < i + 200; ++k) {
        const QChar c = s[k];
        if (c == QLatin1Char('<'))
            ++depth;
        else if (c == QLatin1Char('>') && --depth == 0)
            return k + 1;
        else if (c == QLatin1Char(';') || c == QLatin1Char('{') || c == QLatin1Char('}'))
            break;
    }
    return i;
}

void collectNames(const QString& value, const QList<int>& lines, QList<CppName>* out)
{
    const QString s = blankCppCommentsAndLiterals(value);
    int lineIndex = 0;
    qsizetype i = 0;
    while (i < s.size()) {
        if (s[i] == QLatin1Char('\n'))
            ++lineIndex;
        if (!isIdentifierStart(s[i]) || (i > 0 && isIdentifierChar(s[i - 1]))) {
            ++i;
            continue;
        }
        CppName name;
        qsizetype before = i - 1;
        while (before >= 0 && s[before].isSpace() && s[before] != QLatin1Char('\n'))
            --before;
        if (before >= 1 && s.mid(before - 1, 2) == QLatin1String("::")) {
            const qsizetype q = before - 2;
            name.parts.append(q >= 0 && s[q] == QLatin1Char('>') ? QStringLiteral("<>") : QString());
        }
        name.member = (before >= 0 && s[before] == QLatin1Char('.')) ||
                      (before >= 1 && s.mid(before - 1, 2) == QLatin1String("->"));
        qsizetype end = i;
        int lastLine = lineIndex;
        while (true) {
            qsizetype j = end;
            while (j < s.size() && isIdentifierChar(s[j]))
                ++j;
            name.parts.append(s.mid(end, j - end));
            end = j;
            qsizetype k = skipSpaces(s, j);
            if (s.mid(k, 2) != QLatin1String("::"))
                break;
            k = skipSpaces(s, k + 2);
            if (k >= s.size() || !isIdentifierStart(s[k]))
                break;
            lastLine = lineIndex + int(s.mid(i, k - i).count(QLatin1Char('\n')));
            end = k;
        }
        qsizetype after = skipSpaces(s, end);
        if (after < s.size() && s[after] == QLatin1Char('<'))
            after = skipSpaces(s, skipTemplateArguments(s, after));
        name.called = after < s.size() && s[after] == QLatin1Char('(');
        name.line = lines.isEmpty() ? 0 : lines[qMin<qsizetype>(lastLine, lines.size() - 1)];
        lineIndex += int(s.mid(i, end - i).count(QLatin1Char('\n')));
        out->append(name);
        i = end;
    }
}

}  // namespace

QString blankCppCommentsAndLiterals(const QString& source)
{
    QString s = source;
    auto blank = [&s](qsizetype from, qsizetype to) {
        for (qsizetype k = from; k < to && k < s.size(); ++k)
            if (s[k] != QLatin1Char('\n'))
                s[k] = QLatin1Char(' ');
    };
    qsizetype i = 0;
    while (i < s.size()) {
        if (s.mid(i, 2) == QLatin1String("//")) {
            const qsizetype e = s.indexOf(QLatin1Char('\n'), i);
            blank(i, e < 0 ? s.size() : e);
            i = e < 0 ? s.size() : e;
        } else if (s.mid(i, 2) == QLatin1String("/*")) {
            const qsizetype e = s.indexOf(QLatin1String("*/"), i + 2);
            const qsizetype stop = e < 0 ? s.size() : e + 2;
            blank(i, stop);
            i = stop;
        } else if (s[i] == QLatin1Char('"') || (s[i] == QLatin1Char('\'') && (i == 0 || !isIdentifierChar(s[i - 1])))) {
            // A string or character literal; a quote after a digit is a digit separator (1'000).
            const QChar q = s[i];
            qsizetype k = i + 1;
            while (k < s.size() && s[k] != q && s[k] != QLatin1Char('\n'))
                k += s[k] == QLatin1Char('\\') ? 2 : 1;
            const qsizetype stop = qMin(k + 1, s.size());
            blank(i, stop);
            i = stop;
        } else {
            ++i;
        }
    }
    return s;
}

// Strings that make up a whole statement (docstrings) never reach a compiler, unless the code reads __doc__.
QList<bool> docstrings(const QList<PyToken>& t)
{
    QList<bool> doc(t.size(), false);
    for (const PyToken& tok : t)
        if (tok.kind == PyToken::Kind::Name && tok.text == QLatin1String("__doc__"))
            return doc;
    for (qsizetype i = 0; i < t.size(); ++i) {
        if (t[i].kind != PyToken::Kind::String || (i > 0 && t[i - 1].kind != PyToken::Kind::Newline))
            continue;
        qsizetype e = i;
        while (e < t.size() && t[e].kind == PyToken::Kind::String)
            ++e;
        if (e == t.size() || t[e].kind == PyToken::Kind::Newline)
            for (qsizetype k = i; k < e; ++k)
                doc[k] = true;
    }
    return doc;
}

QList<CppName> inlineCppNames(const QString& python, const PyScan& scan)
{
    QList<CppName> out;
    const QList<PyToken>& t = scan.tokens;
    const QList<bool> doc = docstrings(t);
    QList<bool> tripleDoc;  // for each triple-quoted string in order, whether it is a docstring
    for (qsizetype i = 0; i < t.size(); ++i)
        if (t[i].kind == PyToken::Kind::String && t[i].triple)
            tripleDoc.append(doc[i]);
    const QList<PythonString> triples = tripleQuotedStrings(python);
    for (qsizetype k = 0; k < triples.size(); ++k)  // when the two readings disagree, every string is read
        if (triples.size() != tripleDoc.size() || !tripleDoc[k])
            collectNames(triples[k].value, triples[k].sourceLines, &out);
    for (qsizetype i = 0; i < t.size(); ++i) {
        if (t[i].kind != PyToken::Kind::String || t[i].triple || doc[i])
            continue;
        const QString value = decodeOneLine(t[i].text, t[i].raw);
        collectNames(value, QList<int>(value.count(QLatin1Char('\n')) + 1, t[i].line), &out);
    }
    return out;
}

}  // namespace km
