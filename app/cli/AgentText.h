#pragma once
// How agent runs and steps read on the command line: progress lines, tables, JSON. Pure formatting.

#include "agent/AgentRunner.h"
#include "cli/Cli.h"

namespace km::cli {

QString stepLine(const AgentRun& run, const TrajectoryStep& step);
QVariantMap runToVariant(const AgentRun& run, int steps);
QVariantMap stepToVariant(const TrajectoryStep& step);
QStringList runRowHeader();
QStringList runRow(const AgentRun& run, int steps);
// "provenance: LABEL (imported DATE)" for a run imported from a bundle; empty for a run made here.
QString provenanceLine(const AgentRun& run);
// The summary of `agent run`: a table, or one JSON line per run.
void printOutcomes(const QList<AgentOutcome>& outcomes, bool asJson, Io io);

}  // namespace km::cli
