#pragma once
// The store's schema as an ordered list of migrations; migration N upgrades a file at user_version N-1 to N.

#include <QList>
#include <QStringList>

namespace km::store {

struct Migration {
    int version = 0;
    const char* summary = nullptr;
    QStringList statements;
};

const QList<Migration>& migrations();
int latestSchemaVersion();

}  // namespace km::store
