#pragma once
// What lies at a store path, found without writing a byte there: nothing yet, a KernelMosaic store (marked by its
// application_id, or unmarked from an earlier release), or anything else, which is refused with the path named.

#include "util/Result.h"

namespace km::store {

// PRAGMA application_id of every KernelMosaic store: "KMOS".
constexpr int kApplicationId = 0x4B4D4F53;

struct StoreFile {
    enum class Kind {
        Empty,     // no file, a 0-byte file, or an SQLite file with no schema at all: initialised on open
        Marked,    // application_id is ours
        Unmarked,  // our schema tables without the mark (an earlier release), or user_version newer than this release
    };
    Kind kind = Kind::Empty;
    bool folderWritable = true;
    bool fileWritable = true;  // true when there is no file yet
    bool walFile = false;      // a -wal file lies beside it
    bool writable() const { return folderWritable && fileWritable; }
};

// Refuses a missing or unusable folder, an unreadable file, a file that is no SQLite database and an SQLite database
// of another program. An unmarked file's schema is read through a read-only connection that leaves no -wal or -shm
// behind (immutable when the file is in WAL mode with no -wal: nobody writes it then).
// openInProcess: a connection of this process has the file open, so it was probed when that one opened; its bytes
// are not read again (closing a descriptor of our own would drop that connection's locks: see Database.cpp).
Result<StoreFile> probeStoreFile(const QString& absolutePath, bool openInProcess = false);

// The URI of a read-only connection to `absolutePath` (QSQLITE_OPEN_URI); immutable: no locks, no side files.
QString readOnlyUri(const QString& absolutePath, bool immutable);

}  // namespace km::store
