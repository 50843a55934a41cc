#pragma once
// One SQLite connection (Qt SQL) to a store file, with WAL, foreign keys and migrations applied on open.
// A Database belongs to the thread that opened it: open one per thread.

#include "util/Result.h"

#include <QPair>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariantList>
#include <memory>
#include <optional>

namespace km::store {

class Database {
public:
    // Opens (creating folders and file as needed) and migrates up to targetVersion (0: latest), marking the file as
    // ours (PRAGMA application_id). A file written by a newer release, another program's database and a file that is
    // no database are refused with a clear error, never touched. When the file or its folder cannot be written, the
    // store opens read-only (readOnly()): reads work, a write fails saying the store is read-only.
    static Result<std::unique_ptr<Database>> open(const QString& path, int targetVersion = 0);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    const QString& path() const { return m_path; }
    bool readOnly() const { return m_readOnly; }
    QSqlDatabase connection() const;
    int schemaVersion();

    // Prepares and runs a statement with positional bindings.
    Result<QSqlQuery> exec(const QString& sql, const QVariantList& bindings = {});
    Status execAll(const QStringList& statements);

    // BEGIN IMMEDIATE: takes the write lock up front, so a writer waits (busy timeout) instead of failing midway.
    // Inside an open transaction, begin() opens a savepoint instead, so a store call that makes its own transaction
    // can run inside the caller's: commit() releases the savepoint, rollback() undoes only what followed it.
    Status begin();
    Status commit();
    void rollback();
    // 0 when no transaction is open.
    int transactionDepth() const { return m_depth; }

private:
    Database(QString path, QString connectionName);
    Status configure();
    Status migrate(int targetVersion);
    Status stamp();

    QString m_path;
    QString m_connectionName;
    bool m_readOnly = false;
    int m_depth = 0;
    std::optional<QPair<quint64, quint64>> m_fileKey;  // (device, inode) while counted as open in this process
};

// Commits on commit(), rolls back when destroyed uncommitted: no early return leaves a transaction open.
class Transaction {
public:
    explicit Transaction(Database& db) : m_db(db), m_status(db.begin()) {}
    ~Transaction()
    {
        if (m_status.ok() && !m_done)
            m_db.rollback();
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    const Status& started() const { return m_status; }
    Status commit()
    {
        m_done = true;
        return m_db.commit();
    }

private:
    Database& m_db;
    Status m_status;
    bool m_done = false;
};

}  // namespace km::store
