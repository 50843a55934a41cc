#include "agent/FrontMatter.h"

#include <QRegularExpression>

namespace km {

namespace {

Error lineError(const QString& file, int line, const QString& message)
{
    return makeError(ErrorCode::InvalidInput, QStringLiteral("%1:%2: %3").arg(file, QString::number(line), message));
}

// The value without a trailing `# comment` (a '#' inside quotes is kept).
QString stripComment(const QString& value)
{
    QChar quote;
    for (qsizetype i = 0; i < value.size(); ++i) {
        const QChar c = value.at(i);
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
        } else if (c == u'"' || c == u'\'') {
            quote = c;
        } else if (c == u'#' && (i == 0 || value.at(i - 1).isSpace())) {
            return value.left(i).trimmed();
        }
    }
    return value.trimmed();
}

QString unquote(const QString& s)
{
    if (s.size() >= 2 && (s.front() == u'"' || s.front() == u'\'') && s.back() == s.front())
        return s.mid(1, s.size() - 2);
    return s;
}

}  // namespace

Error FrontMatter::errorAt(const QString& key, const QString& message) const
{
    return lineError(file, line.value(key, 1), message);
}

Result<QStringList> FrontMatter::requireList(const QString& key) const
{
    if (!has(key))
        return errorAt(key, QStringLiteral("front matter lacks `%1: [...]`").arg(key));
    if (!list.contains(key))
        return errorAt(key, QStringLiteral("`%1` must be a list written as [a, b]").arg(key));
    return list.value(key);
}

Result<QString> FrontMatter::requireScalar(const QString& key) const
{
    if (!has(key))
        return errorAt(key, QStringLiteral("front matter lacks `%1:`").arg(key));
    if (!scalar.contains(key) || scalar.value(key).isEmpty())
        return errorAt(key, QStringLiteral("`%1` must be a single non-empty value").arg(key));
    return scalar.value(key);
}

Result<int> FrontMatter::requireInt(const QString& key, int min, int max) const
{
    auto text = requireScalar(key);
    if (!text)
        return text.error();
    bool ok = false;
    const int v = text->toInt(&ok);
    if (!ok || v < min || v > max)
        return errorAt(
            key,
            QStringLiteral("`%1` must be an integer from %2 to %3, not \"%4\"").arg(key).arg(min).arg(max).arg(*text));
    return v;
}

Status FrontMatter::checkKeys(const QStringList& allowed) const
{
    for (auto it = line.cbegin(); it != line.cend(); ++it)
        if (!allowed.contains(it.key()))
            return lineError(file, it.value(),
                             QStringLiteral("unknown front matter key `%1` (known: %2)")
                                 .arg(it.key(), allowed.join(QStringLiteral(", "))));
    return Status::success();
}

Result<FrontMatter> parseFrontMatter(const QString& text, const QString& file)
{
    QString normal = text;
    if (normal.startsWith(QChar(0xFEFF)))
        normal.remove(0, 1);
    normal.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    const QStringList lines = normal.split(QLatin1Char('\n'));
    if (lines.isEmpty() || lines.first().trimmed() != QLatin1String("---"))
        return lineError(file, 1, QStringLiteral("expected a front matter block starting with `---`"));

    static const QRegularExpression keyLine(QStringLiteral("^([A-Za-z_][A-Za-z0-9_-]*)\\s*:(.*)$"));
    FrontMatter fm;
    fm.file = file;
    for (int i = 1; i < lines.size(); ++i) {
        const int lineNo = i + 1;
        const QString& raw = lines.at(i);
        const QString trimmed = raw.trimmed();
        if (trimmed == QLatin1String("---")) {
            fm.bodyLine = lineNo + 1;
            fm.body = lines.mid(i + 1).join(QLatin1Char('\n'));
            return fm;
        }
        if (trimmed.isEmpty() || trimmed.startsWith(QLatin1Char('#')))
            continue;
        const auto m = keyLine.match(raw);
        if (!m.hasMatch())
            return lineError(file, lineNo, QStringLiteral("expected `key: value`, found \"%1\"").arg(trimmed));
        const QString key = m.captured(1);
        if (fm.line.contains(key))
            return lineError(file, lineNo,
                             QStringLiteral("`%1` given twice (first at line %2)").arg(key).arg(fm.line.value(key)));
        fm.line.insert(key, lineNo);
        const QString value = stripComment(m.captured(2));
        if (value.startsWith(QLatin1Char('['))) {
            if (!value.endsWith(QLatin1Char(']')))
                return lineError(file, lineNo, QStringLiteral("list of `%1` is not closed with `]`").arg(key));
            QStringList items;
            const QString inner = value.mid(1, value.size() - 2).trimmed();
            if (!inner.isEmpty()) {
                for (const QString& item : inner.split(QLatin1Char(','))) {
                    const QString v = unquote(item.trimmed());
                    if (v.isEmpty())
                        return lineError(file, lineNo, QStringLiteral("empty item in the list of `%1`").arg(key));
                    items << v;
                }
            }
            fm.list.insert(key, items);
        } else {
            fm.scalar.insert(key, unquote(value));
        }
    }
    return lineError(file, 1, QStringLiteral("front matter opened at line 1 is never closed with `---`"));
}

}  // namespace km
