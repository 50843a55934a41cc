#include "verify/InlineSourceMap.h"

namespace km {

namespace {
// Decodes a non-raw string escape at `s[i]` (the backslash); appends to out and returns the characters consumed.
qsizetype decodeEscape(const QString& s, qsizetype i, QString* out, bool* newlineInSource)
{
    *newlineInSource = false;
    if (i + 1 >= s.size())
        return 1;
    const QChar c = s[i + 1];
    switch (c.unicode()) {
    case '\n': *newlineInSource = true; return 2;  // line continuation: no character in the value
    case 'n': out->append(QLatin1Char('\n')); return 2;
    case 't': out->append(QLatin1Char('\t')); return 2;
    case 'r': out->append(QLatin1Char('\r')); return 2;
    case '\\': out->append(QLatin1Char('\\')); return 2;
    case '\'': out->append(QLatin1Char('\'')); return 2;
    case '"': out->append(QLatin1Char('"')); return 2;
    case '0': out->append(QChar(0)); return 2;
    default: out->append(QLatin1Char('\\')).append(c); return 2;  // unknown escapes stay as written
    }
}
}  // namespace

QList<PythonString> tripleQuotedStrings(const QString& py)
{
    QList<PythonString> out;
    int line = 1;
    qsizetype i = 0;
    while (i < py.size()) {
        const QChar c = py[i];
        if (c == QLatin1Char('\n')) {
            ++line;
            ++i;
            continue;
        }
        if (c == QLatin1Char('#')) {  // a comment runs to the end of the line
            while (i < py.size() && py[i] != QLatin1Char('\n'))
                ++i;
            continue;
        }
        const QString quote = py.mid(i, 3);
        const bool triple = quote == QLatin1String("\"\"\"") || quote == QLatin1String("'''");
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            // The prefix letters just before the quote say whether it is raw (r, R, rb, br, ...).
            qsizetype p = i;
            bool raw = false;
            while (p > 0 && py[p - 1].isLetter()) {
                raw = raw || py[p - 1].toLower() == QLatin1Char('r');
                --p;
            }
            if (!triple) {  // a one-line string: skip it so its quotes cannot open a triple-quoted one
                qsizetype j = i + 1;
                while (j < py.size() && py[j] != c && py[j] != QLatin1Char('\n'))
                    j += py[j] == QLatin1Char('\\') ? 2 : 1;
                i = j + 1;
                continue;
            }
            PythonString s;
            s.sourceLines.append(line);
            qsizetype j = i + 3;
            while (j < py.size() && py.mid(j, 3) != quote) {
                if (!raw && py[j] == QLatin1Char('\\')) {
                    const qsizetype before = s.value.count(QLatin1Char('\n'));
                    bool sourceNewline = false;
                    j += decodeEscape(py, j, &s.value, &sourceNewline);
                    if (sourceNewline)
                        ++line;
                    for (qsizetype k = before; k < s.value.count(QLatin1Char('\n')); ++k)
                        s.sourceLines.append(line);  // an escaped newline: a value line on the same .py line
                    continue;
                }
                if (raw && py[j] == QLatin1Char('\\') && j + 1 < py.size() && py[j + 1] != QLatin1Char('\n')) {
                    s.value.append(py[j]).append(py[j + 1]);  // raw: the backslash stays, the next char too
                    j += 2;
                    continue;
                }
                s.value.append(py[j]);
                if (py[j] == QLatin1Char('\n')) {
                    ++line;
                    s.sourceLines.append(line);
                }
                ++j;
            }
            out.append(s);
            i = j + 3;
            continue;
        }
        ++i;
    }
    return out;
}

int mapGeneratedLine(const QString& generated, int generatedLine, const QList<PythonString>& strings)
{
    for (const PythonString& s : strings) {
        if (s.value.trimmed().isEmpty())
            continue;
        const qsizetype at = generated.indexOf(s.value);
        if (at < 0)
            continue;
        const int firstLine = int(generated.left(at).count(QLatin1Char('\n'))) + 1;
        const int offset = generatedLine - firstLine;
        if (offset >= 0 && offset < s.sourceLines.size())
            return s.sourceLines[offset];
    }
    return 0;
}

}  // namespace km
