#pragma once
// The replay's one mapping of a verdict status to a colour and of a stage to a lane, shared by the timeline, the
// chart and the compare view. Pure, GUI thread (QColor).

#include "model/Trajectory.h"

#include <QColor>
#include <QString>

namespace km::replay {

// PASSED green, COMPILE_ERROR / RUNTIME_ERROR / TIMEOUT / SYSTEM_ERROR red, INCORRECT_* orange, REWARD_HACK purple,
// no verdict (empty) grey.
QColor statusColor(const QString& status);
// 0 implement, 1 repair, 2 optimise.
int laneOf(Stage stage);
inline constexpr int kLaneCount = 3;
// "1.23x", or "" without a speedup.
QString speedupText(const std::optional<double>& speedup);
// "1 step", "3 steps"
QString stepCountText(int n);

}  // namespace km::replay
