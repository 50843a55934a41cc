#pragma once
// The solution review's reason codes: a list of their own ("solutions/reasons" in the settings), picked with the
// digit keys as in task review (review/ReasonCodes.h).

#include "review/ReasonCodes.h"

namespace km::ui {

// wrong result on some input, hack suspected, slower than reference, unreadable, numerically fragile, not a real
// kernel (S1 .. S6).
QList<ReasonCode> defaultSolutionReasonCodes();
QList<ReasonCode> loadSolutionReasonCodes(QSettings& settings);
void saveSolutionReasonCodes(QSettings& settings, const QList<ReasonCode>& codes);

}  // namespace km::ui
