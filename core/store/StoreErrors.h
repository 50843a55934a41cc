#pragma once
// SQLite failures in words a user can act on: a read-only file or folder, a full disk, a file SQLite cannot open, a
// file that is no database; each naming the store's path. Other failures keep SQLite's own text.

#include "util/Result.h"

#include <QSqlError>

namespace km::store {

// The primary SQLite result code of a Qt SQL error (extended codes folded onto theirs), or -1 when there is none.
int sqliteCode(const QSqlError& error);

// Whether storeError() names a condition of the file (read-only, full, cannot open, not a database, damaged, I/O)
// rather than repeating SQLite's text.
bool isFileCondition(const QSqlError& error);

// The error for a failed statement or open of the store at `path`; `what` prefixes the failures that are not mapped
// ("SQL failed"). Logs it once (kmosaic.store).
Error storeError(const QString& path, const QString& what, const QSqlError& error, const QString& sql = {});

// A row that the schema should have kept from being written: "WHAT ID in the store is damaged: REASON". Logs it.
Error damagedRow(const QString& what, qint64 id, const QString& reason);

}  // namespace km::store
