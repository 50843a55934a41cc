#pragma once
// Every byte a store left on disk (the database file and whatever SQLite keeps beside it: -wal, -shm, -journal),
// for tests that must show a secret is nowhere in it.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace km::test {

inline QByteArray storeBytes(const QString& db)
{
    QByteArray all;
    const QFileInfo info(db);
    for (const QFileInfo& f : info.dir().entryInfoList({info.fileName() + QStringLiteral("*")}, QDir::Files)) {
        QFile file(f.filePath());
        if (file.open(QIODevice::ReadOnly))
            all += file.readAll();
    }
    return all;
}

}  // namespace km::test
