#pragma once
// Pure parser of a compute-sanitizer memcheck report (`--log-file`): the errors it found, with their kernel,
// thread and block. Tolerates reports cut short and input that is no report at all. Any thread.

#include <QList>
#include <QString>

namespace km {

struct SanitizerError {
    QString kind;    // the report's first line: "Invalid __global__ write of size 4 bytes", "Program hit cudaError..."
    QString kernel;  // the function it happened in, without parameters: "silu_far_kernel"; empty for API errors
    QString thread;  // "(0,0,0)"
    QString block;   // "(0,0,0)"
    QString detail;  // the explanation lines ("Access to 0x... is out of bounds", ...), without host backtraces
};

struct SanitizerReport {
    bool complete = false;         // an ERROR SUMMARY line was seen
    int errorCount = 0;            // from the summary, else the errors counted
    QList<SanitizerError> errors;  // at most maxKeptErrors, in report order
    static constexpr int maxKeptErrors = 20;
};

SanitizerReport parseMemcheck(const QString& text);

}  // namespace km
