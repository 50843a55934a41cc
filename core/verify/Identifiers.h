#pragma once
// What counts as an identifier character in Python and C/C++ alike (ASCII letters, digits, underscore, and the
// Unicode letters Python allows). Shared by the Python and C++ scanners of the static checks.

#include <QChar>

namespace km {

inline bool isIdentifierStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

inline bool isIdentifierChar(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

}  // namespace km
