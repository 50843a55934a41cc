#include "store/Database.h"

#include "store/Migrations.h"
#include "util/Logging.h"

#include <QAtomicInt>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QSqlError>
#include <QThread>

namespace km::store {

namespace {
QAtomicInt g_connectionCounter;
constexpr int kBusyTimeoutMs = 15000;

Error sqlError(const QString& what, const QSqlError& e, const QString& sql = {})
{
    qCWarning(lcStore).noquote() << what << e.text() << sql.left(200);
    return makeError(ErrorCode::Database, QStringLiteral("%1: %2").arg(what, e.text()), sql);
}

Error newerSchemaError(const QString& path, int version)
{
    return makeError(ErrorCode::Unsupported,
                     QStringLiteral("%1 has schema version %2, newer than this release understands (%3); "
                                    "use a newer KernelMosaic")
                         .arg(path)
                         .arg(version)
                         .arg(latestSchemaVersion()));
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

QSqlDatabase Database::connection() const
{
    return QSqlDatabase::database(m_connectionName, false);
}

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
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kBusyTimeoutMs));
    }
    std::unique_ptr<Database> self(new Database(info.absoluteFilePath(), name));
    if (!self->connection().open())
        return sqlError(QStringLiteral("cannot open %1").arg(path), self->connection().lastError());
    // Before configure(): switching a newer release's file to WAL would already rewrite its header. Not logged
    // here: a file that is no database fails again in configure(), which says so.
    if (QSqlQuery v(self->connection());
        v.exec(QStringLiteral("PRAGMA user_version")) && v.next() && v.value(0).toInt() > latestSchemaVersion())
        return newerSchemaError(self->m_path, v.value(0).toInt());
    if (Status s = self->configure(); !s)
        return s.error();
    if (Status s = self->migrate(targetVersion <= 0 ? latestSchemaVersion() : targetVersion); !s)
        return s.error();
    return self;
}

Status Database::configure()
{
    // journal_mode answers with a row; a file that is not SQLite fails here with "file is not a database".
    // Switching a new file to WAL upgrades a lock: when another process opens the same new file at that moment,
    // SQLite answers SQLITE_BUSY at once (waiting could deadlock) instead of calling the busy handler, so retry
    // within the busy timeout.
    const QString sql = QStringLiteral("PRAGMA journal_mode=WAL");
    QSqlQuery q(connection());
    q.setForwardOnly(true);
    const QDeadlineTimer deadline(kBusyTimeoutMs);
    bool switched = q.exec(sql);
    while (!switched && q.lastError().nativeErrorCode() == QLatin1String("5") && !deadline.hasExpired()) {
        q.finish();
        QThread::msleep(5);
        switched = q.exec(sql);
    }
    if (!switched) {
        const QSqlError error = q.lastError();
        (void)sqlError(QStringLiteral("SQL failed"), error, sql);  // logs it
        const QString message = error.nativeErrorCode() == QLatin1String("5")
                                    ? QStringLiteral("%1 stays locked by another process: %2")
                                    : QStringLiteral("%1 is not a KernelMosaic store: %2");
        return makeError(ErrorCode::Database, message.arg(m_path, error.databaseText()), sql);
    }
    if (!q.next() || q.value(0).toString().toLower() != QLatin1String("wal"))
        return makeError(ErrorCode::Database, QStringLiteral("could not switch %1 to WAL mode").arg(m_path));
    // recursive_triggers: the rows INSERT OR REPLACE deletes fire delete triggers too, so the audit log's
    // append-only trigger cannot be bypassed by replacing an entry.
    return execAll({QStringLiteral("PRAGMA foreign_keys=ON"), QStringLiteral("PRAGMA synchronous=FULL"),
                    QStringLiteral("PRAGMA recursive_triggers=ON")});
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
    if (const int version = schemaVersion(); version > latestSchemaVersion())
        return newerSchemaError(m_path, version);
    for (const Migration& m : migrations()) {
        if (m.version > targetVersion)
            break;
        if (schemaVersion() >= m.version)  // up to date: no write lock, so readers never queue behind writers here
            continue;
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
    for (const QVariant& b : bindings) {
        // A null QString would bind as SQL NULL; text is never NULL in this schema unless bound as such on purpose.
        if (b.typeId() == QMetaType::QString && b.toString().isNull())
            q.addBindValue(QString(QLatin1String("")));
        else
            q.addBindValue(b);
    }
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

Status Database::begin()
{
    return execAll({QStringLiteral("BEGIN IMMEDIATE")});
}
Status Database::commit()
{
    return execAll({QStringLiteral("COMMIT")});
}
void Database::rollback()
{
    (void)execAll({QStringLiteral("ROLLBACK")});
}

}  // namespace km::store
