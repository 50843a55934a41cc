#include "store/StoreFile.h"

#include "store/Migrations.h"
#include "store/Row.h"
#include "store/StoreErrors.h"

#include <QAtomicInt>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QUrl>
#include <QUrlQuery>
#include <QtEndian>
#include <unistd.h>

namespace km::store {

namespace {
QAtomicInt g_probeCounter;
constexpr int kHeaderSize = 100;  // the SQLite database header (fileformat2.html)

bool canWrite(const QString& path)
{
    return ::access(QFile::encodeName(path).constData(), W_OK) == 0;  // root, read-only mounts: as the kernel says
}

struct Schema {
    int applicationId = 0;
    int userVersion = 0;
    QStringList tables;  // and views
    bool empty = true;   // no table, index, view or trigger at all
};

Result<Schema> querySchema(const QSqlDatabase& db, const QString& path)
{
    QSqlQuery q(db);
    q.setForwardOnly(true);
    const auto failed = [&] {
        return storeError(path, QStringLiteral("cannot read"), q.lastError());
    };
    Schema s;
    for (auto [pragma, target] :
         {std::pair{"application_id", &s.applicationId}, std::pair{"user_version", &s.userVersion}}) {
        if (!q.exec(QStringLiteral("PRAGMA ") + QLatin1String(pragma)) || !q.next())
            return failed();
        Row value(q);  // a PRAGMA's one column is named after it
        *target = int(value.integer(pragma));
        if (Status st = value.status(); !st)
            return st.error();
    }
    if (!q.exec(QStringLiteral("SELECT type, name FROM sqlite_master WHERE name NOT GLOB 'sqlite_*' ORDER BY name")))
        return failed();
    Row row(q);
    while (q.next()) {
        s.empty = false;
        if (const QString type = row.text("type"); type == QLatin1String("table") || type == QLatin1String("view"))
            s.tables.append(row.text("name"));
    }
    if (Status st = row.status(); !st)
        return st.error();
    return s;
}

// Reads the mark, version and table names through a read-only connection of its own.
Result<Schema> readSchema(const QString& path, bool immutable)
{
    const QString name = QStringLiteral("kmosaic-probe-%1").arg(g_probeCounter.fetchAndAddRelaxed(1));
    Result<Schema> out = Schema{};
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(readOnlyUri(path, immutable));
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI;QSQLITE_BUSY_TIMEOUT=15000"));
        // One read transaction: the mark, the version and the tables from one snapshot. Read one by one, another
        // process creating the store could commit its first migration in between (no mark yet, then its tables),
        // and a store being created would read as another program's.
        if (!db.open()) {
            out = storeError(path, QStringLiteral("cannot open"), db.lastError());
        } else {
            const bool snapshot = db.transaction();
            out = querySchema(db, path);
            if (snapshot)
                db.rollback();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return out;
}

Error foreign(const QString& path, const Schema& s)
{
    QString what = s.applicationId != 0
                       ? QStringLiteral("application_id 0x%1").arg(uint(s.applicationId), 8, 16, QLatin1Char('0'))
                       : QString();
    if (!s.tables.isEmpty()) {
        const QString some = s.tables.mid(0, 5).join(QStringLiteral(", "));
        what += (what.isEmpty() ? QString() : QStringLiteral("; ")) +
                QStringLiteral("tables %1%2").arg(some, s.tables.size() > 5 ? QStringLiteral(", ...") : QString());
    }
    return makeError(ErrorCode::Database,
                     QStringLiteral("%1 is not a KernelMosaic store: it is an SQLite database of another program (%2); "
                                    "left untouched. Check the path given by --db or KMOSAIC_DB")
                         .arg(path, what));
}
}  // namespace

QString readOnlyUri(const QString& absolutePath, bool immutable)
{
    QUrl url = QUrl::fromLocalFile(absolutePath);
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("mode"), QStringLiteral("ro"));
    if (immutable)
        query.addQueryItem(QStringLiteral("immutable"), QStringLiteral("1"));
    url.setQuery(query);
    return url.toString(QUrl::FullyEncoded);
}

Result<StoreFile> probeStoreFile(const QString& path, bool openInProcess)
{
    const QFileInfo info(path);
    const QString folder = info.absolutePath();
    const QFileInfo folderInfo(folder);
    if (!folderInfo.exists())
        return makeError(ErrorCode::NotFound,
                         QStringLiteral("cannot open the store %1: the folder %2 does not exist (create it first)")
                             .arg(path, folder));
    if (!folderInfo.isDir())
        return makeError(ErrorCode::Io,
                         QStringLiteral("cannot open the store %1: %2 is not a folder").arg(path, folder));
    StoreFile out;
    out.walFile = QFileInfo::exists(path + QStringLiteral("-wal"));
    out.folderWritable = canWrite(folder);
    out.fileWritable = !info.exists() || canWrite(path);
    if (!info.exists() || info.size() == 0)
        return out;
    if (openInProcess) {
        out.kind = StoreFile::Kind::Marked;  // not Empty: the connection already open read or made its schema
        return out;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::Io, QStringLiteral("cannot read the store %1: %2").arg(path, file.errorString()));
    const QByteArray header = file.read(kHeaderSize);
    if (header.size() < kHeaderSize || !header.startsWith(QByteArrayLiteral("SQLite format 3\0")))
        return makeError(ErrorCode::Database,
                         QStringLiteral("%1 is not a KernelMosaic store: it is not an SQLite database (no SQLite "
                                        "header); left untouched")
                             .arg(path));
    const auto be32 = [&](int offset) {
        return qFromBigEndian<qint32>(header.constData() + offset);
    };
    if (be32(68) == kApplicationId) {
        out.kind = StoreFile::Kind::Marked;
        return out;
    }
    // Not marked in the file itself: read the schema (a mark may still sit in the WAL of a running writer).
    const bool walMode = header.at(18) == 2 && header.at(19) == 2;
    auto schema = readSchema(path, walMode && !out.walFile);
    if (!schema)
        return schema.error();
    if (schema->applicationId == kApplicationId) {
        out.kind = StoreFile::Kind::Marked;
        return out;
    }
    if (schema->applicationId != 0)
        return foreign(path, schema.value());
    if (schema->userVersion > latestSchemaVersion()) {  // refused by the caller as a newer release's file
        out.kind = StoreFile::Kind::Unmarked;
        return out;
    }
    if (schema->empty && schema->userVersion == 0)
        return out;  // SQLite with nothing in it
    if (schema->userVersion >= 1 && schema->tables.contains(QStringLiteral("tasks")) &&
        schema->tables.contains(QStringLiteral("audit_log"))) {
        out.kind = StoreFile::Kind::Unmarked;
        return out;
    }
    return foreign(path, schema.value());
}

}  // namespace km::store
