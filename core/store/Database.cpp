#include "store/Database.h"

#include "store/Migrations.h"
#include "store/Row.h"
#include "store/StoreErrors.h"
#include "store/StoreFile.h"
#include "util/Logging.h"

#include <QAtomicInt>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QMutexLocker>
#include <QSqlError>
#include <QThread>
#include <sys/stat.h>

namespace km::store {

namespace {
QAtomicInt g_connectionCounter;
constexpr int kBusyTimeoutMs = 15000;
constexpr int kSqliteBusy = 5;

// The store files this process holds connections to, by (device, inode), with their connection count.
//
// Why: POSIX advisory locks belong to the process, and closing ANY descriptor of a file drops every lock the process
// holds on it (sqlite.org/howtocorrupt.html, 2.2). probeStoreFile() reads the header through a QFile of its own; when
// the workbench opened a second connection (the import job's, on its thread) while its first was open, closing that
// QFile silently dropped the first connection's SHARED lock on the database file. The next CLI process to close its
// connection then got the EXCLUSIVE lock that means "last connection", checkpointed, and deleted the -wal and -shm
// the workbench still had open and mapped: the workbench went on writing into the deleted files, invisible to every
// other process until it quit. So a file that this process already has open is never opened outside SQLite again:
// its first open probed it, and SQLite's own descriptors defer their close while a lock is held.
struct OpenFiles {
    QMutex lock;  // held from the probe until the new connection is counted, so no probe overlaps an open
    QHash<QPair<quint64, quint64>, int> count;
};
OpenFiles& openFiles()
{
    static OpenFiles files;
    return files;
}
std::optional<QPair<quint64, quint64>> fileKey(const QString& path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return std::nullopt;
    return QPair<quint64, quint64>(quint64(st.st_dev), quint64(st.st_ino));
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
    if (m_fileKey) {
        const QMutexLocker lock(&openFiles().lock);
        if (--openFiles().count[*m_fileKey] <= 0)
            openFiles().count.remove(*m_fileKey);
    }
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
    // Nothing is written before the file is known to be ours (or empty): another program's database, or a file that
    // is no database, is refused byte for byte untouched. A file this process has open already was probed then, and
    // must not be read outside SQLite now (see OpenFiles).
    QMutexLocker openLock(&openFiles().lock);
    const auto known = fileKey(info.absoluteFilePath());
    const bool openHere = known && openFiles().count.value(*known) > 0;
    const auto file = probeStoreFile(info.absoluteFilePath(), openHere);
    if (!file)
        return file.error();
    const bool readOnly = !file->writable();
    if (readOnly && file->kind == StoreFile::Kind::Empty)
        return makeError(ErrorCode::Io,
                         QStringLiteral("cannot create the store %1: the file or its folder is read-only").arg(path));

    const QString name = QStringLiteral("kmosaic-%1").arg(g_connectionCounter.fetchAndAddRelaxed(1));
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        QString options = QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kBusyTimeoutMs);
        if (readOnly) {
            // A read-only folder cannot hold the -shm a WAL reader needs; with no -wal there nobody can write the
            // file, so it is read as immutable.
            db.setDatabaseName(readOnlyUri(info.absoluteFilePath(), !file->folderWritable && !file->walFile));
            options += QStringLiteral(";QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI");
        } else {
            db.setDatabaseName(info.absoluteFilePath());
        }
        db.setConnectOptions(options);
    }
    std::unique_ptr<Database> self(new Database(info.absoluteFilePath(), name));
    self->m_readOnly = readOnly;
    if (!self->connection().open())
        return storeError(self->m_path, QStringLiteral("cannot open %1").arg(path), self->connection().lastError());
    if ((self->m_fileKey = fileKey(self->m_path)))  // SQLite created a new file on open
        openFiles().count[*self->m_fileKey] += 1;
    openLock.unlock();
    // Before configure(): switching a newer release's file to WAL would already rewrite its header.
    if (QSqlQuery v(self->connection()); v.exec(QStringLiteral("PRAGMA user_version")) && v.next()) {
        if (const int version = int(Row(v).integer("user_version")); version > latestSchemaVersion())
            return newerSchemaError(self->m_path, version);
    }
    if (Status s = self->configure(); !s)
        return s.error();
    const int target = targetVersion <= 0 ? latestSchemaVersion() : targetVersion;
    if (readOnly) {
        if (const int version = self->schemaVersion(); version < target)
            return makeError(ErrorCode::Io, QStringLiteral("cannot open the store %1: it has schema version %2 and "
                                                           "needs upgrading to %3, but the file or its folder is "
                                                           "read-only")
                                                .arg(path)
                                                .arg(version)
                                                .arg(target));
        return self;
    }
    if (Status s = self->migrate(target); !s)
        return s.error();
    return self;
}

Status Database::configure()
{
    // recursive_triggers: the rows INSERT OR REPLACE deletes fire delete triggers too, so the audit log's
    // append-only trigger cannot be bypassed by replacing an entry.
    const QStringList pragmas{QStringLiteral("PRAGMA foreign_keys=ON"), QStringLiteral("PRAGMA synchronous=FULL"),
                              QStringLiteral("PRAGMA recursive_triggers=ON")};
    if (m_readOnly)
        return execAll(pragmas);
    // journal_mode answers with a row; a file that is not SQLite fails here with "file is not a database".
    // Switching a new file to WAL upgrades a lock: when another process opens the same new file at that moment,
    // SQLite answers SQLITE_BUSY at once (waiting could deadlock) instead of calling the busy handler, so retry
    // within the busy timeout.
    const QString sql = QStringLiteral("PRAGMA journal_mode=WAL");
    QSqlQuery q(connection());
    q.setForwardOnly(true);
    const QDeadlineTimer deadline(kBusyTimeoutMs);
    bool switched = q.exec(sql);
    while (!switched && sqliteCode(q.lastError()) == kSqliteBusy && !deadline.hasExpired()) {
        q.finish();
        QThread::msleep(5);
        switched = q.exec(sql);
    }
    if (!switched) {
        const QSqlError error = q.lastError();
        if (sqliteCode(error) == kSqliteBusy) {
            qCWarning(lcStore).noquote() << "SQL failed" << error.text() << sql;
            return makeError(ErrorCode::Database,
                             QStringLiteral("%1 stays locked by another process: %2").arg(m_path, error.databaseText()),
                             sql);
        }
        if (isFileCondition(error))  // read-only, full, cannot open, not a database: said as such
            return storeError(m_path, QStringLiteral("SQL failed"), error, sql);
        qCWarning(lcStore).noquote() << "SQL failed" << error.text() << sql;
        return makeError(ErrorCode::Database,
                         QStringLiteral("%1 is not a KernelMosaic store: %2").arg(m_path, error.databaseText()), sql);
    }
    if (!q.next() || Row(q).text("journal_mode").toLower() != QLatin1String("wal"))
        return makeError(ErrorCode::Database, QStringLiteral("could not switch %1 to WAL mode").arg(m_path));
    return execAll(pragmas);
}

int Database::schemaVersion()
{
    auto q = exec(QStringLiteral("PRAGMA user_version"));
    if (!q || !q.value().isActive())
        return -1;
    QSqlQuery query = std::move(q).value();
    return query.next() ? int(Row(query).integer("user_version")) : -1;
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
    return stamp();
}

Status Database::stamp()
{
    // A store of a release before the mark gets it on its first open for writing (new stores get it in migration 1).
    const auto marked = [this] {
        auto q = exec(QStringLiteral("PRAGMA application_id"));
        return q && q.value().next() && Row(q.value()).integer("application_id") == kApplicationId;
    };
    if (marked())
        return {};
    Transaction tx(*this);
    if (!tx.started())
        return tx.started();
    if (marked())
        return {};
    if (Status s = execAll({QStringLiteral("PRAGMA application_id=%1").arg(kApplicationId)}); !s)
        return s;
    if (Status s = tx.commit(); !s)
        return s;
    qCInfo(lcStore) << "marked" << m_path << "as a KernelMosaic store (application_id)";
    return {};
}

Result<QSqlQuery> Database::exec(const QString& sql, const QVariantList& bindings)
{
    QSqlQuery q(connection());
    q.setForwardOnly(true);
    if (!q.prepare(sql))
        return storeError(m_path, QStringLiteral("SQL prepare failed"), q.lastError(), sql);
    for (const QVariant& b : bindings) {
        // A null QString would bind as SQL NULL; text is never NULL in this schema unless bound as such on purpose.
        if (b.typeId() == QMetaType::QString && b.toString().isNull())
            q.addBindValue(QString(QLatin1String("")));
        else
            q.addBindValue(b);
    }
    if (!q.exec())
        return storeError(m_path, QStringLiteral("SQL failed"), q.lastError(), sql);
    return q;
}

Status Database::execAll(const QStringList& statements)
{
    for (const QString& sql : statements) {
        QSqlQuery q(connection());
        if (!q.exec(sql))
            return storeError(m_path, QStringLiteral("SQL failed"), q.lastError(), sql);
    }
    return {};
}

static QString savepointName(int depth)
{
    return QStringLiteral("km_nested_%1").arg(depth);
}

Status Database::begin()
{
    const QString sql =
        m_depth == 0 ? QStringLiteral("BEGIN IMMEDIATE") : QStringLiteral("SAVEPOINT ") + savepointName(m_depth);
    Status s = execAll({sql});
    if (s)
        ++m_depth;
    return s;
}
Status Database::commit()
{
    if (m_depth == 0)
        return execAll({QStringLiteral("COMMIT")});  // reports SQLite's "no transaction is active"
    const int depth = --m_depth;
    if (depth == 0) {
        Status s = execAll({QStringLiteral("COMMIT")});
        if (!s)
            (void)execAll({QStringLiteral("ROLLBACK")});  // never leave the failed transaction open
        return s;
    }
    return execAll({QStringLiteral("RELEASE ") + savepointName(depth)});
}
void Database::rollback()
{
    if (m_depth == 0)
        return;
    const int depth = --m_depth;
    if (depth == 0) {
        (void)execAll({QStringLiteral("ROLLBACK")});
        return;
    }
    (void)execAll(
        {QStringLiteral("ROLLBACK TO ") + savepointName(depth), QStringLiteral("RELEASE ") + savepointName(depth)});
}

}  // namespace km::store
