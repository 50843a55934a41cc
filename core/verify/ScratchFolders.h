#pragma once
// Scratch folders of harness workers that outlive the process that made them. A worker's folder is removed with its
// owner (QTemporaryDir), except when the owner is killed (SIGKILL, a crash): the next owner then removes every
// folder whose recorded owner is no longer alive. Any thread; plain file operations.

#include <QString>

namespace km {

// Records this process (pid and start time, so a reused pid does not pass for it) as the owner of `folder`.
bool markScratchOwner(const QString& folder);

// Removes the folders in `parent` named like `pattern` (a wildcard, e.g. "kmosaic-worker-*") whose owner is
// recorded and no longer alive. Folders without an owner record are left alone. Returns how many were removed.
int removeAbandonedScratch(const QString& parent, const QString& pattern);

}  // namespace km
