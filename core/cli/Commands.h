#pragma once
// The commands behind kmosaic; each gets its own arguments (after the command words) and an open store.

#include "cli/Cli.h"

namespace km {
class TaskStore;
}

namespace km::cli {

int importCommand(TaskStore& store, const QStringList& args, Io io);
int exportCommand(TaskStore& store, const QStringList& args, Io io);
int tasksListCommand(TaskStore& store, const QStringList& args, Io io);
int tasksShowCommand(TaskStore& store, const QStringList& args, Io io);
int tasksHistoryCommand(TaskStore& store, const QStringList& args, Io io);
int reviewCommand(TaskStore& store, const QStringList& args, Io io);
int verifyCommand(TaskStore& store, const QStringList& args, Io io);
int verdictsListCommand(TaskStore& store, const QStringList& args, Io io);
int verdictsShowCommand(TaskStore& store, const QStringList& args, Io io);
int poolServeCommand(TaskStore& store, const QStringList& args, Io io);
int poolStatusCommand(TaskStore& store, const QStringList& args, Io io);

}  // namespace km::cli
