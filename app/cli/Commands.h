#pragma once
// The commands behind kmosaic; each gets its own arguments (after the command words) and the store, which it opens
// once its arguments are read (StoreOpener.h).

#include "cli/Cli.h"
#include "util/Result.h"

#include <memory>

namespace km {
class TaskStore;
class Executor;
}  // namespace km

namespace km::cli {

class StoreOpener;

int importCommand(StoreOpener& opener, const QStringList& args, Io io);
int exportCommand(StoreOpener& opener, const QStringList& args, Io io);
int tasksListCommand(StoreOpener& opener, const QStringList& args, Io io);
int tasksShowCommand(StoreOpener& opener, const QStringList& args, Io io);
int tasksHistoryCommand(StoreOpener& opener, const QStringList& args, Io io);
int reviewCommand(StoreOpener& opener, const QStringList& args, Io io);
int verifyCommand(StoreOpener& opener, const QStringList& args, Io io);
int verdictsListCommand(StoreOpener& opener, const QStringList& args, Io io);
int verdictsShowCommand(StoreOpener& opener, const QStringList& args, Io io);
int poolServeCommand(StoreOpener& opener, const QStringList& args, Io io);
int poolStatusCommand(StoreOpener& opener, const QStringList& args, Io io);
int gpusCommand(StoreOpener& opener, const QStringList& args, Io io);

// The executor of `verify` and `pool serve` on this machine: one worker per GPU chosen by `gpus` ("all", a list of
// indices; empty: every visible GPU unless `device` is cpu, and one plain worker where nvidia-smi finds none).
// An error of code InvalidInput is bad usage. `log` gets notes on CUDA_VISIBLE_DEVICES.
Result<std::unique_ptr<Executor>> localExecutor(const QString& gpus, const QString& device, QTextStream* log,
                                                int workersPerGpu = 1);

}  // namespace km::cli
