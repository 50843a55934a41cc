#pragma once
// JSON over QVariant that keeps integers and floats apart ("16" is qint64, "16.0" is double), which QJsonDocument
// does not. Used for task files and store columns where a value's type is meaningful. Reading is nlohmann-json's
// parser (Json.cpp); writing is hand-written (JsonWrite.cpp says why).

#include "util/Result.h"

#include <QByteArray>
#include <QVariant>

namespace km::json {

struct ParseError {
    int line = 0;    // 1-based
    int column = 0;  // 1-based
    QString reason;
};

// Objects become QVariantMap, arrays QVariantList, numbers qint64 (a larger integer: the nearest double) or double,
// null an invalid QVariant; ill-formed UTF-8 reads as U+FFFD. Refused: duplicate keys, nesting deeper than 256
// levels, a number beyond double or one RFC 8259 does not allow ("01", "1.", "NaN"), an unpaired \u surrogate.
// On failure returns nullopt and fills *error.
std::optional<QVariant> parse(const QByteArray& text, ParseError* error);

// Compact JSON. Doubles always carry a '.' or an exponent; QVariantMap keys come out sorted.
QByteArray write(const QVariant& value);

// The shortest text that reads back to the same double, always with a '.' or an exponent ("16.0", "1e-05"), so
// that JSON and TOML readers see a float.
QByteArray formatDouble(double d);

}  // namespace km::json
