#pragma once
// A small JSON reader and writer over QVariant that keeps integers and floats apart ("16" is qint64, "16.0" is
// double), which QJsonDocument does not. Used for task files and store columns where a value's type is meaningful.

#include "util/Result.h"

#include <QByteArray>
#include <QVariant>

namespace km::json {

struct ParseError {
    int line = 0;    // 1-based
    int column = 0;  // 1-based
    QString reason;
};

// Objects become QVariantMap, arrays QVariantList, numbers qint64 or double, null an invalid QVariant.
// On failure returns nullopt and fills *error.
std::optional<QVariant> parse(const QByteArray& text, ParseError* error);

// Compact JSON. Doubles always carry a '.' or an exponent; QVariantMap keys come out sorted.
QByteArray write(const QVariant& value);

// The shortest text that reads back to the same double, always with a '.' or an exponent ("16.0", "1e-05"), so
// that JSON and TOML readers see a float.
QByteArray formatDouble(double d);

}  // namespace km::json
