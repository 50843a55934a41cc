#pragma once
// Pure parser of compiler output (nvcc's front end, the host compiler, ptxas) into located diagnostics.

#include <QList>
#include <QString>

namespace km {

struct Diagnostic {
    enum class Severity { Error, Warning, Note };
    Severity severity = Severity::Error;
    QString file;    // as the compiler printed it; empty for ptxas and the linker
    int line = 0;    // 1-based; 0 when the message has no line
    int column = 0;  // 1-based; 0 when unknown (nvcc's front end prints a caret line instead)
    QString code;    // nvcc's diagnostic number ("177-D"), when given
    QString message;
    QString context;  // the source and caret lines nvcc prints under a diagnostic
};

QList<Diagnostic> parseCompilerOutput(const QString& output);

}  // namespace km
