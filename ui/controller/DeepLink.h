#pragma once
// Links to a view of the workbench: `kmosaic-workbench --open run/ID`, `run/ID/step/N` (N counts from 1, as every
// view shows steps), `solution/ID`, `task/ID`. Parsed at start-up, written by the views' "Copy Link". Pure values.

#include "util/Result.h"

#include <QString>
#include <optional>

namespace km::ui {

struct DeepLink {
    enum class Kind { Task, Run, Solution };
    Kind kind = Kind::Task;
    QString taskId;           // Kind::Task
    qint64 id = 0;            // Kind::Run, Kind::Solution
    std::optional<int> step;  // Kind::Run: 0-based index of the step (the link's N - 1)
    bool operator==(const DeepLink&) const = default;

    static DeepLink toTask(const QString& taskId);
    static DeepLink toRun(qint64 runId, std::optional<int> stepIdx = std::nullopt);
    static DeepLink toSolution(qint64 solutionId);
};

// InvalidInput naming what is wrong: "'run/x': 'x' is not a run id", "'foo/1': links start with task/, run/ or
// solution/".
Result<DeepLink> parseDeepLink(const QString& text);
QString toString(const DeepLink& link);     // "run/3/step/2"
QString commandLine(const DeepLink& link);  // "kmosaic-workbench --open run/3/step/2"

}  // namespace km::ui
