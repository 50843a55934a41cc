#pragma once
// The C++ names used by the C++/CUDA source that a Python solution holds in string literals (what load_inline
// compiles), each with its line in the .py file. C++ comments and C++ string literals are skipped. Pure function.

#include "verify/PythonScan.h"

#include <QStringList>

namespace km {

struct CppName {
    QStringList parts;    // at::cuda::getCurrentCUDAStream → [at, cuda, getCurrentCUDAStream]; "" first for ::x,
                          // "<>" first when qualified by a template (numeric_limits<float>::max)
    bool member = false;  // after "." or "->"
    bool called = false;  // followed by "(", possibly after template arguments
    int line = 0;         // 1-based line of the .py file
};

// `scan` is scanPython(python): its one-line strings are read from it, the triple-quoted ones through
// tripleQuotedStrings (InlineSourceMap.h), whose line maps load_inline's diagnostics use too.
QList<CppName> inlineCppNames(const QString& python, const PyScan& scan);

// `source` with comments, string and character literals blanked out; newlines and length are kept.
QString blankCppCommentsAndLiterals(const QString& source);

}  // namespace km
