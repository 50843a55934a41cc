#include "util/JsonFields.h"

namespace km::json {

bool isInteger(const QVariant& v)
{
    return v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Int;
}

bool isNumber(const QVariant& v)
{
    return isInteger(v) || v.typeId() == QMetaType::Double;
}

QString alternatives(const QStringList& names)
{
    if (names.size() < 2)
        return names.join(QString());
    return names.mid(0, names.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") + names.last();
}

QString Fields::text(const QString& key, bool required)
{
    const QVariant v = m_map.value(key);
    if (!v.isValid()) {
        if (required)
            fail(QStringLiteral("%1 is missing").arg(key));
        return {};
    }
    if (v.typeId() != QMetaType::QString)
        fail(QStringLiteral("%1 is not a string").arg(key));
    return v.toString();
}

QString Fields::oneOf(const QString& key, const QStringList& allowed, const QString& fallback)
{
    const QString v = text(key);
    if (v.isEmpty() && !fallback.isEmpty())
        return fallback;
    if (!allowed.contains(v))
        fail(QStringLiteral("%1 '%2' is not %3").arg(key, v, alternatives(allowed)));
    return v;
}

std::optional<qint64> Fields::integer(const QString& key)
{
    const QVariant v = m_map.value(key);
    if (!v.isValid())
        return std::nullopt;
    if (!isInteger(v))
        fail(QStringLiteral("%1 is not an integer").arg(key));
    return v.toLongLong();
}

std::optional<double> Fields::number(const QString& key)
{
    const QVariant v = m_map.value(key);
    if (!v.isValid())
        return std::nullopt;
    if (!isNumber(v))
        fail(QStringLiteral("%1 is not a number").arg(key));
    return v.toDouble();
}

std::optional<bool> Fields::boolean(const QString& key)
{
    const QVariant v = m_map.value(key);
    if (!v.isValid())
        return std::nullopt;
    if (v.typeId() != QMetaType::Bool)
        fail(QStringLiteral("%1 is not true or false").arg(key));
    return v.toBool();
}

QVariantMap Fields::object(const QString& key)
{
    const QVariant v = m_map.value(key);
    if (v.isValid() && v.typeId() != QMetaType::QVariantMap)
        fail(QStringLiteral("%1 is not an object").arg(key));
    return v.toMap();
}

QVariantList Fields::list(const QString& key, bool ofObjects)
{
    const QVariant v = m_map.value(key);
    if (v.isValid() && v.typeId() != QMetaType::QVariantList)
        fail(QStringLiteral("%1 is not a list").arg(key));
    const QVariantList items = v.toList();
    for (qsizetype i = 0; ofObjects && i < items.size(); ++i)
        if (items[i].typeId() != QMetaType::QVariantMap)
            fail(QStringLiteral("%1[%2] is not an object").arg(key).arg(i));
    return items;
}

void Fields::fail(const QString& message)
{
    if (!m_error)
        m_error = makeError(ErrorCode::InvalidInput, m_prefix + message);
}

void Fields::fail(const Error& e)
{
    if (!m_error)
        m_error = e;
}

}  // namespace km::json
