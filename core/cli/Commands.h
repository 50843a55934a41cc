#pragma once
// The commands behind kmosaic; each gets its own arguments (after the command words) and an open store.

#include "cli/Cli.h"
#include "util/Result.h"

#include <memory>

namespace km {
class TaskStore;
class Executor;
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
int gpusCommand(TaskStore& store, const QStringList& args, Io io);

// The executor of `verify` and `pool serve` on this machine: one worker per GPU chosen by `gpus` ("all", a list of
// indices; empty: every visible GPU unless `device` is cpu, and one plain worker where nvidia-smi finds none).
// An error of code InvalidInput is bad usage. `log` gets notes on CUDA_VISIBLE_DEVICES.
Result<std::unique_ptr<Executor>> localExecutor(const QString& gpus, const QString& device, QTextStream* log,
                                                int workersPerGpu = 1);

}  // namespace km::cli
