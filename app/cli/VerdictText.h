#pragma once
// The human-readable verdict, shared by `kmosaic verdicts show` and `kmosaic verify`. Pure text, any thread.

#include "model/Verdict.h"

#include <QTextStream>

namespace km::cli {

// Status, task, solution, time, harness, executor, isolation, environment (one line), summary, findings with their
// lines, diagnostics with their solution lines, trials (max abs and rel error each), timing (median, IQR, speedup
// and its 95% CI) when the evidence has them.
void printVerdict(const Verdict& v, const QString& taskId, QTextStream& out);
// "1.25x", or "-" without a speedup.
QString speedupText(const std::optional<double>& speedup);

}  // namespace km::cli
