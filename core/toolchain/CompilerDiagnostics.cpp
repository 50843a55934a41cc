#include "toolchain/CompilerDiagnostics.h"

#include <QRegularExpression>

namespace km {

namespace {
Diagnostic::Severity severityOf(const QString& word)
{
    if (word.startsWith(QLatin1String("warning")))
        return Diagnostic::Severity::Warning;
    if (word == QLatin1String("note") || word == QLatin1String("remark"))
        return Diagnostic::Severity::Note;
    return Diagnostic::Severity::Error;  // error, fatal error, catastrophic error
}
}  // namespace

QList<Diagnostic> parseCompilerOutput(const QString& output)
{
    // nvcc (EDG):  file(12): error: message      file(5): warning #177-D: message
    static const QRegularExpression edg(QStringLiteral(
        R"re(^(.+?)\((\d+)\): (catastrophic error|fatal error|error|warning|remark|note)(?: #([\w-]+))?: (.*)$)re"));
    // gcc / clang: file:12:5: error: message
    static const QRegularExpression gcc(
        QStringLiteral(R"re(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$)re"));
    // ptxas / nvlink: "ptxas error   : message"
    static const QRegularExpression tool(
        QStringLiteral(R"re(^(ptxas|nvlink|ld)(?: (error|warning|fatal))?\s*: (.*)$)re"));

    QList<Diagnostic> out;
    Diagnostic* last = nullptr;  // context lines (source, caret) belong to the diagnostic above them
    for (const QString& line : output.split(QLatin1Char('\n'))) {
        QRegularExpressionMatch m;
        if ((m = edg.match(line)).hasMatch()) {
            out.append({severityOf(m.captured(3)),
                        m.captured(1),
                        m.captured(2).toInt(),
                        0,
                        m.captured(4),
                        m.captured(5).trimmed(),
                        {}});
        } else if ((m = gcc.match(line)).hasMatch()) {
            out.append({severityOf(m.captured(4)),
                        m.captured(1),
                        m.captured(2).toInt(),
                        m.captured(3).toInt(),
                        {},
                        m.captured(5).trimmed(),
                        {}});
        } else if ((m = tool.match(line)).hasMatch()) {
            const bool warning = m.captured(2) == QLatin1String("warning");
            out.append({warning ? Diagnostic::Severity::Warning : Diagnostic::Severity::Error,
                        {},
                        0,
                        0,
                        m.captured(1),
                        m.captured(3).trimmed(),
                        {}});
        } else {
            if (last && !line.trimmed().isEmpty() && line.startsWith(QLatin1Char(' ')))
                last->context += (last->context.isEmpty() ? QString() : QStringLiteral("\n")) + line;
            if (line.trimmed().isEmpty())
                last = nullptr;
            continue;
        }
        last = &out.last();
    }
    return out;
}

}  // namespace km
