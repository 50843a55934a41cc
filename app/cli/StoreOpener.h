#pragma once
// The store of one command, opened when the command first asks for it, after it has read its arguments: --help and
// bad usage never open (or create) a store, and commands that need none never touch it. Lives on the CLI's thread.

#include "cli/Cli.h"

#include <memory>

namespace km {
class TaskStore;
}

namespace km::cli {

class StoreOpener {
public:
    explicit StoreOpener(QString given);  // --db PATH; empty: $KMOSAIC_DB, else the XDG default
    ~StoreOpener();
    StoreOpener(const StoreOpener&) = delete;
    StoreOpener& operator=(const StoreOpener&) = delete;

    // The open store, or nullptr once "kmosaic: why" is on io.err (the command then exits with Failed).
    TaskStore* open(Io io);

private:
    QString m_given;
    std::unique_ptr<TaskStore> m_store;
};

}  // namespace km::cli
