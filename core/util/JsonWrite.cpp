#include "util/Json.h"

#include <QVariantList>
#include <QVariantMap>

// The writer stays hand-written, not nlohmann-json's dump: nlohmann prints doubles in its own shortest form ("100.0",
// "15000000.0", "-0.0") where formatDouble prints "1e+02", "1.5e+07", "0.0" (and the TOML writer shares
// formatDouble), and the bytes json::write makes are hashed (Task::contentHash, trajectory bundle digests), stored
// and shipped, so they must not change.

namespace km::json {
namespace {

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
