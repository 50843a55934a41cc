#pragma once
// What the next prompt says about the last verdict: compiler diagnostics at solution lines, the failing
// configuration and its error figures, integrity findings, timings against the reference and the best so far,
// profiler and Nsight Compute figures. Pure, any thread.

#include "model/Verdict.h"

#include <QStringList>
#include <optional>

namespace km {

// The parts map onto the repair and optimise templates' placeholders (resources/prompts/README.md).
struct Feedback {
    QString status;         // "COMPILE_ERROR"
    QString summary;        // the verdict's one line
    QString diagnostics;    // one compiler message per line, at solution lines
    QString failure;        // failing configuration, seed, error figures, message
    QString error;          // runtime error and the tail of its traceback
    QString findings;       // one check per line
    QString timing;         // medians of solution and reference, speedup
    QString best;           // the best passing speedup so far
    QString profile;        // own-kernel share, kernels, Nsight Compute figures
    QString failureStatus;  // status when it did not pass; empty when it passed (guidance query)
    QStringList checks;     // ids of the findings of severity error (guidance query)
    QString text() const;   // every part, as one Markdown text
};

// `bestSpeedup`: the best speedup of the run's passing solutions (this verdict's included), if any.
Feedback feedbackFor(const Verdict& verdict, std::optional<double> bestSpeedup, int maxChars = 4000);

}  // namespace km
