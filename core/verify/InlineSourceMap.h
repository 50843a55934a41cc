#pragma once
// Maps lines of a generated source file back to the Python solution that held the source in a string literal
// (load_inline writes cuda.cu from the strings of the .py). Pure functions.

#include <QList>
#include <QString>

namespace km {

// A triple-quoted string literal of a Python file: its value (escapes decoded unless raw) and, for each line of
// the value, the line of the .py file it came from.
struct PythonString {
    QString value;
    QList<int> sourceLines;  // sourceLines[i]: 1-based .py line of value line i + 1
};

QList<PythonString> tripleQuotedStrings(const QString& python);

// The .py line of line `generatedLine` (1-based) of `generated`, found through the string whose value the generated
// file contains; 0 when the line does not come from any of the strings (e.g. a prefix the tool added).
int mapGeneratedLine(const QString& generated, int generatedLine, const QList<PythonString>& strings);

}  // namespace km
