// Status colours and stage lanes of the replay views.
#include "replay/StepColors.h"

namespace km::replay {

QColor statusColor(const QString& status)
{
    if (status.isEmpty())
        return QColor(0x9e, 0x9e, 0x9e);
    if (status == QLatin1String("PASSED"))
        return QColor(0x2e, 0x9d, 0x4f);
    if (status == QLatin1String("REWARD_HACK"))
        return QColor(0x8e, 0x44, 0xad);
    if (status.startsWith(QLatin1String("INCORRECT_")))
        return QColor(0xe6, 0x7e, 0x22);
    return QColor(0xd0, 0x3b, 0x3b);  // COMPILE_ERROR, RUNTIME_ERROR, TIMEOUT, SYSTEM_ERROR, INVALID_REFERENCE
}

int laneOf(Stage stage)
{
    switch (stage) {
    case Stage::Implement: return 0;
    case Stage::Repair: return 1;
    case Stage::Optimise: return 2;
    }
    return 0;
}

QString speedupText(const std::optional<double>& speedup)
{
    return speedup ? QStringLiteral("%1x").arg(*speedup, 0, 'f', 2) : QString();
}

QString stepCountText(int n)
{
    return n == 1 ? QStringLiteral("1 step") : QStringLiteral("%1 steps").arg(n);
}

}  // namespace km::replay
