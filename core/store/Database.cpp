#include "store/Database.h"

#include "store/Migrations.h"
#include "util/Logging.h"

#include <QAtomicInt>
#include <QDir>
#include <QFileInfo>
#include <QSqlError>

namespace km::store {

namespace {
QAtomicInt g_connectionCounter;

Error sqlError(const QString& what, const QSqlError& e, const QString& sql = {})
{
    qCWarning(lcStore).noquote() << what << e.text() << sql.left(200);
    return makeError(ErrorCode::Database, QStringLiteral("%1: %2").arg(what, e.text()), sql);
}
}  // namespace

Database::Database(QString path, QString connectionName)
    : m_path(std::move(path))
    , m_connectionName(std::move(connectionName))
{
}

Database::~Database()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

QSqlDatabase Database::connection() const { return QSqlDatabase::database(m_connectionName, false); }

Result<std::unique_ptr<Database>> Database::open(const QString& path, int targetVersion)
{
    if (path.isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("no database path given"));
    const QFileInfo info(path);
    if (info.exists() && info.isDir())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("%1 is a folder, not a database file").arg(path));
    if (!QDir().mkpath(info.absolutePath()))
        return makeError(ErrorCode::Io, QStringLiteral("cannot create folder %1").arg(info.absolutePath()));

    const QString name = QStringLiteral("kmosaic-%1").arg(g_connectionCounter.fetchAndAddRelaxed(1));
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(info.absoluteFilePath());
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=15000"));
    }
    std::unique_ptr<Database> self(new Database(info.absoluteFilePath(), name));
    if (!self->connection().open())
        return sqlError(QStringLiteral("cannot open %1").arg(path), self->connection().lastError());
    if (Status s = self->configure(); !s)
        return s.error();
    if (Status s = self->migrate(targetVersion <= 0 ? latestSchemaVersion() : targetVersion); !s)
        return s.error();
    return self;
}

Status Database::configure()
{
    // journal_mode answers with a row; a file that is not SQLite fails here with "file is not a database".
    auto wal = exec(QStringLiteral("PRAGMA journal_mode=WAL"));
    if (!wal)
        return makeError(ErrorCode::Database,
                         QStringLiteral("%1 is not a KernelMosaic store: %2").arg(m_path, wal.error().message));
    QSqlQuery q = std::move(wal).value();
    if (!q.next() || q.value(0).toString().toLower() != QLatin1String("wal"))
        return makeError(ErrorCode::Database, QStringLiteral("could not switch %1 to WAL mode").arg(m_path));
    return execAll({QStringLiteral("PRAGMA foreign_keys=ON"), QStringLiteral("PRAGMA synchronous=FULL")});
}

int Database::schemaVersion()
{
    auto q = exec(QStringLiteral("PRAGMA user_version"));
    if (!q || !q.value().isActive())
        return -1;
    QSqlQuery query = std::move(q).value();
    return query.next() ? query.value(0).toInt() : -1;
}

Status Database::migrate(int targetVersion)
{
    if (schemaVersion() > latestSchemaVersion())
        return makeError(ErrorCode::Unsupported,
                         QStringLiteral("%1 has schema version %2, newer than this release understands (%3); "
                                        "use a newer KernelMosaic")
                             .arg(m_path)
                             .arg(schemaVersion())
                             .arg(latestSchemaVersion()));
    for (const Migration& m : migrations()) {
        if (m.version > targetVersion)
            break;
        Transaction tx(*this);
        if (!tx.started())
            return tx.started();
        // Re-read inside the write lock: another process may have migrated meanwhile.
        if (schemaVersion() >= m.version)
            continue;
        if (Status s = execAll(m.statements); !s)
            return makeError(ErrorCode::Database,
                             QStringLiteral("migration to schema %1 failed: %2").arg(m.version).arg(s.error().message),
                             s.error().detail);
        if (Status s = execAll({QStringLiteral("PRAGMA user_version=%1").arg(m.version)}); !s)
            return s;
        if (Status s = tx.commit(); !s)
            return s;
        qCInfo(lcStore) << "migrated" << m_path << "to schema" << m.version << "-" << m.summary;
    }
    return {};
}

Result<QSqlQuery> Database::exec(const QString& sql, const QVariantList& bindings)
{
    QSqlQuery q(connection());
    q.setForwardOnly(true);
    if (!q.prepare(sql))
        return sqlError(QStringLiteral("SQL prepare failed"), q.lastError(), sql);
    for (const QVariant& b : bindings)
        q.addBindValue(b);
    if (!q.exec())
        return sqlError(QStringLiteral("SQL failed"), q.lastError(), sql);
    return q;
}

Status Database::execAll(const QStringList& statements)
{
    for (const QString& sql : statements) {
        QSqlQuery q(connection());
        if (!q.exec(sql))
            return sqlError(QStringLiteral("SQL failed"), q.lastError(), sql);
    }
    return {};
}

Status Database::begin() { return execAll({QStringLiteral("BEGIN IMMEDIATE")}); }
Status Database::commit() { return execAll({QStringLiteral("COMMIT")}); }
void Database::rollback() { (void)execAll({QStringLiteral("ROLLBACK")}); }

}  // namespace km::store
