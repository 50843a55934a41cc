#include "store/rows/RunRows.h"

#include "store/StoreErrors.h"

namespace km::store {

Result<RunPhase> runPhase(qint64 runId, const QString& state, const QString& stage)
{
    const auto knownState = runStateFromString(state);
    if (!knownState)
        return damagedRow(QStringLiteral("agent run"), runId, QStringLiteral("unknown run state '%1'").arg(state));
    const auto knownStage = stageFromString(stage);
    if (!knownStage)
        return damagedRow(QStringLiteral("agent run"), runId, QStringLiteral("unknown stage '%1'").arg(stage));
    return RunPhase{*knownState, *knownStage};
}

}  // namespace km::store
