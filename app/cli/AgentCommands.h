#pragma once
// The `kmosaic agent` commands: run, resume, fork, list, show, cancel, export, import, key (docs/agent.md). Each gets
// its arguments after `agent SUB` and the store to open once they are read; the key commands (after `agent key SUB`)
// need no store.

#include "cli/Cli.h"

namespace km {
class TaskStore;
}

namespace km::cli {

class StoreOpener;

int agentRunCommand(StoreOpener& opener, const QStringList& args, Io io);
int agentResumeCommand(StoreOpener& opener, const QStringList& args, Io io);
int agentForkCommand(StoreOpener& opener, const QStringList& args, Io io);
int agentListCommand(StoreOpener& opener, const QStringList& args, Io io);
int agentShowCommand(StoreOpener& opener, const QStringList& args, Io io);
int agentCancelCommand(StoreOpener& opener, const QStringList& args, Io io);
int agentExportCommand(StoreOpener& opener, const QStringList& args, Io io);  // AgentTransferCommands.cpp
int agentImportCommand(StoreOpener& opener, const QStringList& args, Io io);
int agentKeySetCommand(const QStringList& args, Io io);  // AgentKeyCommands.cpp: the key from stdin
int agentKeyDeleteCommand(const QStringList& args, Io io);
int agentKeyCheckCommand(const QStringList& args, Io io);

}  // namespace km::cli
