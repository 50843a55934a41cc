#include "agent/CodeExtraction.h"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>

namespace km {

namespace {

struct Block {
    int index = 0;
    QString lang;  // lower-case first word of the info string; empty when untagged
    QStringList lines;
    int openLine = 0;  // 1-based line of the opening fence
    bool closed = false;
};

bool isPythonTag(const QString& lang)
{
    return lang.isEmpty() || lang == QLatin1String("python") || lang == QLatin1String("py") ||
           lang == QLatin1String("python3");
}

QString removeIndent(const QString& line, qsizetype indent)
{
    qsizetype i = 0;
    while (i < indent && i < line.size() && (line.at(i) == u' ' || line.at(i) == u'\t'))
        ++i;
    return line.mid(i);
}

QList<Block> fencedBlocks(const QStringList& lines)
{
    static const QRegularExpression open(QStringLiteral("^([ \\t]*)(`{3,}|~{3,})(.*)$"));
    QList<Block> blocks;
    for (int i = 0; i < lines.size(); ++i) {
        const auto m = open.match(lines.at(i));
        if (!m.hasMatch())
            continue;
        const QString fence = m.captured(2);
        const QString info = m.captured(3).trimmed();
        if (fence.front() == u'`' && info.contains(QLatin1Char('`')))
            continue;  // inline code such as ```x```, not a fence
        Block b;
        b.index = int(blocks.size());
        b.lang = info.section(QLatin1Char(' '), 0, 0).toLower();
        b.openLine = i + 1;
        const QRegularExpression close(QStringLiteral("^[ \\t]*%1{%2,}[ \\t]*$")
                                           .arg(QRegularExpression::escape(QString(fence.front())))
                                           .arg(fence.size()));
        int j = i + 1;
        for (; j < lines.size(); ++j) {
            if (close.match(lines.at(j)).hasMatch()) {
                b.closed = true;
                break;
            }
            b.lines << removeIndent(lines.at(j), m.captured(1).size());
        }
        blocks.append(b);
        i = j;
    }
    return blocks;
}

bool definesModelNew(const QString& code)
{
    static const QRegularExpression re(QStringLiteral("^[ \\t]*class\\s+ModelNew\\b"),
                                       QRegularExpression::MultilineOption);
    return re.match(code).hasMatch();
}

// Which lines begin a logical Python line (outside strings and brackets), and whether everything is closed.
struct PyScan {
    QList<bool> starts;
    bool balanced = true;
};

PyScan scanPython(const QStringList& lines)
{
    PyScan s;
    QString triple;
    int depth = 0;
    bool continued = false;
    for (const QString& line : lines) {
        s.starts << (triple.isEmpty() && depth == 0 && !continued);
        qsizetype i = 0;
        while (i < line.size()) {
            const QChar c = line.at(i);
            if (!triple.isEmpty()) {
                if (c == u'\\') {
                    i += 2;
                } else if (line.mid(i, 3) == triple) {
                    triple.clear();
                    i += 3;
                } else {
                    ++i;
                }
            } else if (c == u'#') {
                break;
            } else if (c == u'"' || c == u'\'') {
                if (line.mid(i, 3) == QString(3, c)) {
                    triple = QString(3, c);
                    i += 3;
                    continue;
                }
                for (++i; i < line.size() && line.at(i) != c; ++i)
                    if (line.at(i) == u'\\')
                        ++i;
                ++i;
            } else {
                if (c == u'(' || c == u'[' || c == u'{')
                    ++depth;
                else if (c == u')' || c == u']' || c == u'}')
                    s.balanced = --depth >= 0 && s.balanced;
                ++i;
            }
        }
        continued = triple.isEmpty() && line.trimmed().endsWith(QLatin1Char('\\'));
    }
    s.balanced = s.balanced && triple.isEmpty() && depth == 0 && !continued;
    return s;
}

// The whole text reads as a Python file: every top-level logical line starts like a statement.
bool isPlainPython(const QStringList& lines)
{
    static const QRegularExpression statement(QStringLiteral(
        R"(^(?:#|@|["']|(?:import|from|class|def|async|if|elif|else|for|while|try|except|finally|with|return|raise|)"
        R"(assert|pass|del|global|nonlocal|break|continue)\b|[A-Za-z_][\w.]*\s*(?:\[[^\]]*\]\s*)?)"
        R"((?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)|[A-Za-z_][\w.]*\s*\(|[A-Za-z_]\w*\s*:\s*[\w.\[\], ]+=|[)\]}]))"));
    const PyScan scan = scanPython(lines);
    bool first = true;
    for (int i = 0; i < lines.size(); ++i) {
        const QString& line = lines.at(i);
        if (!scan.starts.at(i) || line.trimmed().isEmpty())
            continue;
        if (line.front().isSpace()) {
            if (first)
                return false;
            continue;
        }
        first = false;
        if (!statement.match(line).hasMatch())
            return false;
    }
    return !first && scan.balanced;
}

// A block cut off by the end of the reply that nevertheless holds a whole file.
bool looksComplete(const QStringList& lines)
{
    static const QRegularExpression forward(
        QStringLiteral(R"(^class\s+ModelNew\b[\s\S]*?^[ \t]+def\s+forward\s*\([\s\S]*^[ \t]+return\b)"),
        QRegularExpression::MultilineOption);
    QStringList trimmed = lines;
    while (!trimmed.isEmpty() && trimmed.last().trimmed().isEmpty())
        trimmed.removeLast();
    if (trimmed.isEmpty())
        return false;
    const QString last = trimmed.last().trimmed();
    if (last.endsWith(QLatin1Char(':')) || last.endsWith(QLatin1Char(',')))
        return false;
    return forward.match(trimmed.join(QLatin1Char('\n'))).hasMatch() && scanPython(trimmed).balanced;
}

QString asFile(QStringList lines)
{
    while (!lines.isEmpty() && lines.first().trimmed().isEmpty())
        lines.removeFirst();
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty())
        lines.removeLast();
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString describe(const Block& b)
{
    return b.lang.isEmpty() ? QStringLiteral("untagged") : b.lang;
}

Error noCode(const QString& detail)
{
    return makeError(ErrorCode::InvalidInput, QStringLiteral("no code block with class ModelNew in the reply"), detail);
}

}  // namespace

Result<ExtractedCode> extractSolution(const QString& reply)
{
    QString text = reply;
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n")).replace(QLatin1Char('\r'), QLatin1Char('\n'));
    const QStringList lines = text.split(QLatin1Char('\n'));
    QList<Block> blocks = fencedBlocks(lines);
    const int total = int(blocks.size());
    QString ignored;

    if (!blocks.isEmpty() && !blocks.last().closed) {
        const Block& cut = blocks.last();
        const QString code = cut.lines.join(QLatin1Char('\n'));
        if (looksComplete(cut.lines) && definesModelNew(code))
            return ExtractedCode{asFile(cut.lines), cut.index,
                                 QStringLiteral("block %1 of %2 (%3) never closed: the reply was cut off after a "
                                                "complete ModelNew, taken as it is")
                                     .arg(cut.index + 1)
                                     .arg(total)
                                     .arg(describe(cut)),
                                 true};
        const bool hasEarlier = std::any_of(blocks.cbegin(), blocks.cend() - 1, [](const Block& b) {
            return definesModelNew(b.lines.join(QLatin1Char('\n')));
        });
        if (isPythonTag(cut.lang) || definesModelNew(code) || !hasEarlier)
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("reply was cut off inside a code block (opened at line %1, never closed)")
                                 .arg(cut.openLine),
                             QStringLiteral("the unclosed %1 block has %2 lines and no complete ModelNew")
                                 .arg(describe(cut))
                                 .arg(cut.lines.size()));
        ignored = QStringLiteral("; the unclosed %1 block at the end was ignored").arg(describe(cut));
        blocks.removeLast();
    }

    if (!blocks.isEmpty()) {
        QList<const Block*> python;
        QList<const Block*> other;
        for (const Block& b : blocks)
            if (definesModelNew(b.lines.join(QLatin1Char('\n'))))
                (isPythonTag(b.lang) ? python : other).append(&b);
        const QList<const Block*>& candidates = python.isEmpty() ? other : python;
        if (candidates.isEmpty()) {
            QStringList langs;
            for (const Block& b : blocks)
                langs << describe(b);
            return noCode(QStringLiteral("the reply has %1 code block(s) (%2); none defines class ModelNew")
                              .arg(total)
                              .arg(langs.join(QStringLiteral(", "))));
        }
        const Block& chosen = *candidates.last();
        QString note = QStringLiteral("block %1 of %2 (%3)").arg(chosen.index + 1).arg(total).arg(describe(chosen));
        if (candidates.size() > 1)
            note += QStringLiteral("; %1 blocks define ModelNew, the last was taken").arg(candidates.size());
        return ExtractedCode{asFile(chosen.lines), chosen.index, note + ignored, false};
    }

    if (definesModelNew(text)) {
        if (isPlainPython(lines))
            return ExtractedCode{asFile(lines), -1, QStringLiteral("no code fence: the whole reply is the file"),
                                 false};
        return noCode(QStringLiteral("class ModelNew appears outside any code block, in a reply that is not plain "
                                     "Python; send the whole file in one ```python block"));
    }
    return noCode(text.trimmed().isEmpty() ? QStringLiteral("the reply is empty")
                                           : QStringLiteral("the reply has no code block and no class ModelNew"));
}

}  // namespace km
