#include "util/Json.h"

#include <QVariantList>
#include <QVariantMap>
#include <cmath>

namespace km::json {
namespace {

class Reader {
public:
    explicit Reader(const QByteArray& text) : m_s(text) {}

    std::optional<QVariant> document(ParseError* error)
    {
        std::optional<QVariant> v = value(0);
        if (v) {
            skipSpace();
            if (m_pos != m_s.size())
                fail("unexpected text after the JSON value");
        }
        if (!m_reason.isEmpty()) {
            if (error)
                *error = where();
            return std::nullopt;
        }
        return v;
    }

private:
    static constexpr int kMaxDepth = 256;

    ParseError where() const
    {
        ParseError e{1, 1, m_reason};
        for (qsizetype i = 0; i < m_failPos && i < m_s.size(); ++i) {
            if (m_s[i] == '\n') {
                ++e.line;
                e.column = 1;
            } else {
                ++e.column;
            }
        }
        return e;
    }
    void fail(const QString& reason)
    {
        if (m_reason.isEmpty()) {
            m_reason = reason;
            m_failPos = m_pos;
        }
    }
    void skipSpace()
    {
        while (m_pos < m_s.size() &&
               (m_s[m_pos] == ' ' || m_s[m_pos] == '\t' || m_s[m_pos] == '\n' || m_s[m_pos] == '\r'))
            ++m_pos;
    }
    bool literal(const char* word)
    {
        const qsizetype n = qsizetype(qstrlen(word));
        if (m_s.mid(m_pos, n) != word)
            return false;
        m_pos += n;
        return true;
    }

    std::optional<QVariant> value(int depth)
    {
        if (depth > kMaxDepth) {
            fail(QStringLiteral("nesting deeper than %1 levels").arg(kMaxDepth));
            return std::nullopt;
        }
        skipSpace();
        if (m_pos >= m_s.size()) {
            fail(QStringLiteral("unexpected end of input"));
            return std::nullopt;
        }
        const char c = m_s[m_pos];
        if (c == '{')
            return object(depth);
        if (c == '[')
            return array(depth);
        if (c == '"') {
            auto s = string();
            return s ? std::optional<QVariant>(*s) : std::nullopt;
        }
        if (c == '-' || (c >= '0' && c <= '9'))
            return number();
        if (literal("true"))
            return QVariant(true);
        if (literal("false"))
            return QVariant(false);
        if (literal("null"))
            return QVariant();
        fail(QStringLiteral("unexpected character '%1'").arg(QChar::fromLatin1(c)));
        return std::nullopt;
    }

    std::optional<QVariant> object(int depth)
    {
        ++m_pos;  // {
        QVariantMap map;
        skipSpace();
        if (m_pos < m_s.size() && m_s[m_pos] == '}') {
            ++m_pos;
            return map;
        }
        for (;;) {
            skipSpace();
            if (m_pos >= m_s.size() || m_s[m_pos] != '"') {
                fail(QStringLiteral("expected a quoted object key"));
                return std::nullopt;
            }
            const qsizetype keyStart = m_pos;
            auto key = string();
            if (!key)
                return std::nullopt;
            skipSpace();
            if (m_pos >= m_s.size() || m_s[m_pos] != ':') {
                fail(QStringLiteral("expected ':' after key \"%1\"").arg(*key));
                return std::nullopt;
            }
            ++m_pos;
            auto v = value(depth + 1);
            if (!v)
                return std::nullopt;
            if (map.contains(*key)) {
                m_pos = keyStart;
                fail(QStringLiteral("duplicate key \"%1\"").arg(*key));
                return std::nullopt;
            }
            map.insert(*key, *v);
            skipSpace();
            if (m_pos < m_s.size() && m_s[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_s.size() && m_s[m_pos] == '}') {
                ++m_pos;
                return map;
            }
            fail(QStringLiteral("expected ',' or '}' in object"));
            return std::nullopt;
        }
    }

    std::optional<QVariant> array(int depth)
    {
        ++m_pos;  // [
        QVariantList list;
        skipSpace();
        if (m_pos < m_s.size() && m_s[m_pos] == ']') {
            ++m_pos;
            return list;
        }
        for (;;) {
            auto v = value(depth + 1);
            if (!v)
                return std::nullopt;
            list.append(*v);
            skipSpace();
            if (m_pos < m_s.size() && m_s[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_s.size() && m_s[m_pos] == ']') {
                ++m_pos;
                return list;
            }
            fail(QStringLiteral("expected ',' or ']' in array"));
            return std::nullopt;
        }
    }

    std::optional<QString> string()
    {
        const qsizetype start = m_pos;
        ++m_pos;  // opening quote
        QByteArray utf8;
        QString out;
        auto flush = [&] {
            out += QString::fromUtf8(utf8);
            utf8.clear();
        };
        while (m_pos < m_s.size()) {
            const char c = m_s[m_pos++];
            if (c == '"') {
                flush();
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                --m_pos;
                fail(QStringLiteral("control character in string (escape it)"));
                return std::nullopt;
            }
            if (c != '\\') {
                utf8.append(c);
                continue;
            }
            if (m_pos >= m_s.size())
                break;
            const char e = m_s[m_pos++];
            switch (e) {
            case '"': utf8.append('"'); break;
            case '\\': utf8.append('\\'); break;
            case '/': utf8.append('/'); break;
            case 'b': utf8.append('\b'); break;
            case 'f': utf8.append('\f'); break;
            case 'n': utf8.append('\n'); break;
            case 'r': utf8.append('\r'); break;
            case 't': utf8.append('\t'); break;
            case 'u': {
                bool ok = false;
                const uint code = m_s.mid(m_pos, 4).toUInt(&ok, 16);
                if (!ok || m_s.mid(m_pos, 4).size() != 4) {
                    fail(QStringLiteral("bad \\u escape"));
                    return std::nullopt;
                }
                m_pos += 4;
                flush();
                out += QChar(char16_t(code));
                break;
            }
            default:
                --m_pos;
                fail(QStringLiteral("unknown escape '\\%1'").arg(QChar::fromLatin1(e)));
                return std::nullopt;
            }
        }
        m_pos = start;
        fail(QStringLiteral("unterminated string"));
        return std::nullopt;
    }

    std::optional<QVariant> number()
    {
        const qsizetype start = m_pos;
        bool isFloat = false;
        if (m_s[m_pos] == '-')
            ++m_pos;
        while (m_pos < m_s.size()) {
            const char c = m_s[m_pos];
            if (c >= '0' && c <= '9') {
                ++m_pos;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                isFloat = true;
                ++m_pos;
            } else {
                break;
            }
        }
        const QByteArray text = m_s.mid(start, m_pos - start);
        bool ok = false;
        if (!isFloat) {
            const qint64 i = text.toLongLong(&ok);
            if (ok)
                return QVariant(i);
        }
        const double d = text.toDouble(&ok);
        if (!ok || !std::isfinite(d)) {
            m_pos = start;
            fail(QStringLiteral("malformed number '%1'").arg(QString::fromLatin1(text)));
            return std::nullopt;
        }
        return QVariant(d);
    }

    const QByteArray& m_s;
    qsizetype m_pos = 0;
    qsizetype m_failPos = 0;
    QString m_reason;
};

void writeString(QByteArray& out, const QString& s)
{
    out.append('"');
    for (qsizetype i = 0; i < s.size(); ++i) {
        const char16_t c = s[i].unicode();
        switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        default:
            if (c < 0x20)
                out.append(QStringLiteral("\\u%1").arg(uint(c), 4, 16, QLatin1Char('0')).toLatin1());
            else if (QChar::isHighSurrogate(c) && i + 1 < s.size() && s[i + 1].isLowSurrogate())
                out.append(QStringView(s).mid(i++, 2).toUtf8());  // one code point outside the BMP (an emoji)
            else
                out.append(QStringView(s).mid(i, 1).toUtf8());
        }
    }
    out.append('"');
}

void writeValue(QByteArray& out, const QVariant& v)
{
    switch (v.typeId()) {
    case QMetaType::UnknownType:
    case QMetaType::Nullptr: out.append("null"); return;
    case QMetaType::Bool: out.append(v.toBool() ? "true" : "false"); return;
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt: out.append(QByteArray::number(v.toLongLong())); return;
    case QMetaType::Double:
    case QMetaType::Float: out.append(formatDouble(v.toDouble())); return;
    case QMetaType::QVariantList: {
        out.append('[');
        bool first = true;
        for (const QVariant& e : v.toList()) {
            if (!first)
                out.append(',');
            first = false;
            writeValue(out, e);
        }
        out.append(']');
        return;
    }
    case QMetaType::QVariantMap: {
        out.append('{');
        const QVariantMap m = v.toMap();
        bool first = true;
        for (auto it = m.cbegin(); it != m.cend(); ++it) {
            if (!first)
                out.append(',');
            first = false;
            writeString(out, it.key());
            out.append(':');
            writeValue(out, it.value());
        }
        out.append('}');
        return;
    }
    case QMetaType::QStringList: writeValue(out, QVariant(QVariantList(v.toList()))); return;
    default: writeString(out, v.toString()); return;
    }
}

}  // namespace

std::optional<QVariant> parse(const QByteArray& text, ParseError* error)
{
    return Reader(text).document(error);
}

QByteArray formatDouble(double value)
{
    QByteArray d = QByteArray::number(value, 'g', 17);
    for (int prec = 1; prec < 17; ++prec) {
        const QByteArray t = QByteArray::number(value, 'g', prec);
        if (t.toDouble() == value) {
            d = t;
            break;
        }
    }
    if (!d.contains('.') && !d.contains('e') && !d.contains("inf") && !d.contains("nan"))
        d.append(".0");
    return d;
}

QByteArray write(const QVariant& value)
{
    QByteArray out;
    writeValue(out, value);
    return out;
}

}  // namespace km::json
