#include "store/StoreErrors.h"

#include "util/Logging.h"

#include <QFileInfo>
#include <QStorageInfo>

namespace km::store {

namespace {
// SQLite's primary result codes this file maps (sqlite3.h).
enum : int {
    kPerm = 3,
    kReadOnly = 8,
    kIoErr = 10,
    kCorrupt = 11,
    kFull = 13,
    kCantOpen = 14,
    kNotADb = 26,
};

// An I/O error on a disk with next to nothing left is a full disk (SQLite says "disk I/O error" when it cannot grow
// its shared-memory file, for instance).
bool diskNearlyFull(const QString& path)
{
    const QStorageInfo volume(QFileInfo(path).absolutePath());
    return volume.isValid() && volume.bytesAvailable() >= 0 && volume.bytesAvailable() < 1024 * 1024;
}
}  // namespace

int sqliteCode(const QSqlError& error)
{
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    return ok ? code & 0xff : -1;
}

bool isFileCondition(const QSqlError& error)
{
    switch (sqliteCode(error)) {
    case kPerm:
    case kReadOnly:
    case kIoErr:
    case kCorrupt:
    case kFull:
    case kCantOpen:
    case kNotADb: return true;
    default: return false;
    }
}

Error storeError(const QString& path, const QString& what, const QSqlError& error, const QString& sql)
{
    qCWarning(lcStore).noquote() << what << path << error.text() << sql.left(200);
    const QString why = error.databaseText().isEmpty() ? error.text() : error.databaseText();
    const QString detail = sql.isEmpty() ? error.text() : error.text() + QLatin1Char('\n') + sql;
    const auto io = [&](const QString& message) {
        return makeError(ErrorCode::Io, message.arg(path, why), detail);
    };
    switch (sqliteCode(error)) {
    case kReadOnly: return io(QStringLiteral("cannot write the store %1: the file or its folder is read-only (%2)"));
    case kFull: return io(QStringLiteral("cannot write the store %1: the disk is full (%2)"));
    case kIoErr:
        if (diskNearlyFull(path))
            return io(QStringLiteral("cannot write the store %1: the disk is full (%2)"));
        return io(QStringLiteral("cannot read or write the store %1: input/output error (%2)"));
    case kCantOpen:
        return io(QStringLiteral("cannot open the store %1: SQLite cannot open the file, or its journal beside it "
                                 "(%2); check that the file and its folder exist and can be read and written"));
    case kPerm: return io(QStringLiteral("cannot open the store %1: permission denied (%2)"));
    case kNotADb:
        return makeError(ErrorCode::Database,
                         QStringLiteral("%1 is not a KernelMosaic store: it is not an SQLite database (%2); "
                                        "left untouched")
                             .arg(path, why),
                         detail);
    case kCorrupt:
        return makeError(ErrorCode::Database,
                         QStringLiteral("the store %1 is damaged (%2); restore it from a backup").arg(path, why),
                         detail);
    default: return makeError(ErrorCode::Database, QStringLiteral("%1: %2").arg(what, error.text()), sql);
    }
}

Error damagedRow(const QString& what, qint64 id, const QString& reason)
{
    const QString message = QStringLiteral("%1 %2 in the store is damaged: %3").arg(what).arg(id).arg(reason);
    qCWarning(lcStore).noquote() << message;
    return makeError(ErrorCode::Database, message);
}

}  // namespace km::store
