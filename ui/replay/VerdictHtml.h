#pragma once
// A step's verdict as one HTML page for the Verdict tab: status, summary, findings with severity, the trials table
// (configuration, seed, ok, max abs, max rel, mismatches), timing (median, IQR, CI95 of the speedup, reference,
// runs), build and phase durations, Nsight Compute figures per kernel, sanitizer errors and the GPU, decoded with
// VerdictEvidence::decode. Pure, any thread.

#include "model/Verdict.h"

#include <QString>
#include <optional>

namespace km::replay {

// `noVerdictReason`: what to say without a verdict ("the reply had no code", the step's error).
QString verdictHtml(const std::optional<Verdict>& verdict, const QString& noVerdictReason);

}  // namespace km::replay
