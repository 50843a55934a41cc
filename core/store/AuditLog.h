#pragma once
// The append-only audit log, shared by the repositories over one store file. Call inside the writer's
// transaction, on the thread that owns the Database.

#include "util/Result.h"

#include <QVariantMap>

namespace km::store {

class Database;

// The current time as the store writes it: ISO 8601, UTC, milliseconds.
QString nowText();

// One entry: who did what to which entity, why, and the details as a JSON object.
Status appendAudit(Database& db, const QString& actor, const QString& entity, const QString& entityId,
                   const QString& action, const QString& reason, const QVariantMap& detail);

}  // namespace km::store
