#pragma once
// Typed fields of one parsed JSON object (a QVariantMap from json::parse), for readers that must say exactly what
// is wrong and where: the first problem is kept as an InvalidInput error, its message prefixed with the object's
// path ("findings[2].", "runs[1].steps[0]: "). A missing key or null is absent, never an error unless required.

#include "util/Result.h"

#include <QStringList>
#include <QVariantMap>
#include <optional>

namespace km::json {

bool isInteger(const QVariant& v);
bool isNumber(const QVariant& v);  // an integer or a double

class Fields {
public:
    Fields(const QVariantMap& m, QString prefix) : m_map(m), m_prefix(std::move(prefix)) {}

    QString text(const QString& key, bool required = false);
    QString oneOf(const QString& key, const QStringList& allowed, const QString& fallback);  // empty: fallback
    std::optional<qint64> integer(const QString& key);
    std::optional<double> number(const QString& key);
    std::optional<bool> boolean(const QString& key);
    QVariantMap object(const QString& key);
    QVariantList list(const QString& key, bool ofObjects = false);

    void fail(const QString& message);  // "<prefix><message>", unless a problem was found already
    void fail(const Error& e);          // an error found further down, kept as it is
    const std::optional<Error>& error() const { return m_error; }

private:
    const QVariantMap& m_map;
    QString m_prefix;
    std::optional<Error> m_error;
};

// "a", "a or b", "a, b or c"
QString alternatives(const QStringList& names);

}  // namespace km::json
