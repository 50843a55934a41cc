#pragma once
// The `kmosaic agent` commands: run, resume, list, show, cancel, export, import, key (docs/agent.md). Each gets its
// arguments after `agent SUB` and an open store; the key commands (after `agent key SUB`) need no store.

#include "cli/Cli.h"

namespace km {
class TaskStore;
}

namespace km::cli {

int agentRunCommand(TaskStore& store, const QStringList& args, Io io);
int agentResumeCommand(TaskStore& store, const QStringList& args, Io io);
int agentListCommand(TaskStore& store, const QStringList& args, Io io);
int agentShowCommand(TaskStore& store, const QStringList& args, Io io);
int agentCancelCommand(TaskStore& store, const QStringList& args, Io io);
int agentExportCommand(TaskStore& store, const QStringList& args, Io io);  // AgentTransferCommands.cpp
int agentImportCommand(TaskStore& store, const QStringList& args, Io io);
int agentKeySetCommand(const QStringList& args, Io io);  // AgentKeyCommands.cpp: the key from stdin
int agentKeyDeleteCommand(const QStringList& args, Io io);
int agentKeyCheckCommand(const QStringList& args, Io io);

}  // namespace km::cli
