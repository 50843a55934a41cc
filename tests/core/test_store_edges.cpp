// The store's edges: it marks its files, refuses another program's database untouched, initialises an empty file,
// stamps an unmarked store of an earlier release, and says read-only, disk full and the like in words, with the path.
#include "StoreTestSupport.h"
#include "store/StoreErrors.h"
#include "store/StoreFile.h"

#include <QtEndian>

namespace {
// Runs SQL on a plain connection of its own (not the store's): how another program would write its file.
bool writeForeign(const QString& path, const QStringList& statements)
{
    bool ok = true;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "foreign");
        db.setDatabaseName(path);
        ok = db.open();
        for (const QString& sql : statements) {
            QSqlQuery q(db);
            ok = ok && q.exec(sql);
            if (!ok)
                qWarning() << sql << q.lastError().text();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase("foreign");
    return ok;
}

QStringList sideFiles(const QString& path)
{
    QStringList out;
    for (const char* suffix : {"-wal", "-shm", "-journal"})
        if (QFileInfo::exists(path + suffix))
            out.append(path + suffix);
    return out;
}

qint32 headerApplicationId(const QString& path)
{
    const QByteArray bytes = fileBytes(path);
    return bytes.size() >= 100 ? qFromBigEndian<qint32>(bytes.constData() + 68) : -1;
}
}  // namespace

class TestStoreEdges : public QObject, StoreFiles {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void refusesAnotherProgramsDatabaseUntouched_data()
    {
        QTest::addColumn<QStringList>("statements");
        QTest::addColumn<QString>("named");
        QTest::newRow("rollback journal") << QStringList{"CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT)",
                                                         "INSERT INTO photos(name) VALUES ('cat.jpg')"}
                                          << "photos";
        QTest::newRow("WAL, with user_version")
            << QStringList{"PRAGMA journal_mode=WAL", "CREATE TABLE notes(body TEXT)",
                           "INSERT INTO notes VALUES ('keep me')", "PRAGMA user_version=3"}
            << "notes";
        QTest::newRow("other application_id, no table")
            << QStringList{"PRAGMA application_id=1234", "PRAGMA user_version=1"} << "application_id 0x000004d2";
        QTest::newRow("our table names, other application_id")
            << QStringList{"CREATE TABLE tasks(x)", "CREATE TABLE audit_log(x)", "PRAGMA user_version=2",
                           "PRAGMA application_id=7"}
            << "application_id";
        QTest::newRow("a tasks table, no version") << QStringList{"CREATE TABLE tasks(x)"} << "tasks";
    }
    void refusesAnotherProgramsDatabaseUntouched()
    {
        QFETCH(QStringList, statements);
        QFETCH(QString, named);
        const QString path = newPath();
        QVERIFY(writeForeign(path, statements));
        QCOMPARE(sideFiles(path), QStringList());
        const QByteArray before = fileBytes(path);
        QVERIFY(before.startsWith("SQLite format 3"));

        auto store = TaskStore::open(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::Database);
        const QString message = store.error().message;
        QVERIFY2(message.contains(path) && message.contains("not a KernelMosaic store") &&
                     message.contains("another program") && message.contains(named),
                 qPrintable(message));
        QVERIFY(fileBytes(path) == before);
        QCOMPARE(sideFiles(path), QStringList());
    }

    void initialisesAnEmptyFile_data()
    {
        QTest::addColumn<QStringList>("statements");  // empty: a 0-byte file
        QTest::newRow("0 bytes") << QStringList{};
        QTest::newRow("SQLite with no schema") << QStringList{"PRAGMA journal_mode=WAL"};
    }
    void initialisesAnEmptyFile()
    {
        QFETCH(QStringList, statements);
        const QString path = newPath();
        if (statements.isEmpty()) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
        } else {
            QVERIFY(writeForeign(path, statements));
            QVERIFY(QFileInfo(path).size() > 0);
        }
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), store::latestSchemaVersion());
        QCOMPARE(scalar(store->database(), "PRAGMA application_id"), qint64(store::kApplicationId));
        VERIFY_OK(store->upsertTask(filterTasks().first(), "test", "seed"));
    }

    void newStoreCarriesTheMarkInItsHeader()
    {
        const QString path = newPath();
        {
            auto store = openStore(path);
            QVERIFY(store);
        }
        QCOMPARE(headerApplicationId(path), qint32(0x4B4D4F53));
        QCOMPARE(fileBytes(path).mid(68, 4), QByteArray("KMOS"));
    }

    void stampsAnUnmarkedStoreOfAnEarlierRelease()
    {
        const QString path = newPath();
        {
            auto store = openStore(path);
            QVERIFY(store);
            VERIFY_OK(store->upsertTask(filterTasks().first(), "test", "seed"));
            // What a release before the mark left: the same schema, application_id 0.
            VERIFY_OK(store->database().exec("PRAGMA application_id=0"));
        }
        QCOMPARE(headerApplicationId(path), qint32(0));
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->count().value(), 1);
        QCOMPARE(scalar(store->database(), "PRAGMA application_id"), qint64(store::kApplicationId));
        store.reset();
        QCOMPARE(headerApplicationId(path), qint32(store::kApplicationId));
    }

    void aStoreInAMissingFolderIsNamed()
    {
        const QString folder = m_dir.filePath("not/there");
        const QString path = folder + "/x.sqlite";
        auto resolved = resolveStorePath(path);
        QVERIFY(!resolved);
        QCOMPARE(resolved.error().code, ErrorCode::NotFound);
        QVERIFY2(resolved.error().message.contains(path) && resolved.error().message.contains("does not exist"),
                 qPrintable(resolved.error().message));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("not")));
    }

    // SQLite's result codes (primary or extended) each say what is wrong with the file, with its path.
    void sqliteErrorsInWords_data()
    {
        QTest::addColumn<QString>("nativeCode");
        QTest::addColumn<QString>("sqliteText");
        QTest::addColumn<QString>("says");
        QTest::addColumn<ErrorCode>("code");
        QTest::newRow("READONLY") << "8"
                                  << "attempt to write a readonly database"
                                  << "cannot write the store %1: the file or its folder is read-only" << ErrorCode::Io;
        QTest::newRow("READONLY_DIRECTORY")
            << "1544"
            << "attempt to write a readonly database"
            << "cannot write the store %1: the file or its folder is read-only" << ErrorCode::Io;
        QTest::newRow("FULL") << "13"
                              << "database or disk is full"
                              << "cannot write the store %1: the disk is full" << ErrorCode::Io;
        QTest::newRow("CANTOPEN") << "14"
                                  << "unable to open database file"
                                  << "cannot open the store %1: SQLite cannot" << ErrorCode::Io;
        QTest::newRow("NOTADB") << "26"
                                << "file is not a database"
                                << "%1 is not a KernelMosaic store: it is not an SQLite database"
                                << ErrorCode::Database;
        QTest::newRow("CORRUPT") << "11"
                                 << "database disk image is malformed"
                                 << "the store %1 is damaged" << ErrorCode::Database;
        QTest::newRow("CONSTRAINT keeps SQLite's words")
            << "19"
            << "UNIQUE constraint failed: tasks.id"
            << "SQL failed: UNIQUE constraint failed" << ErrorCode::Database;
    }
    void sqliteErrorsInWords()
    {
        QFETCH(QString, nativeCode);
        QFETCH(QString, sqliteText);
        QFETCH(QString, says);
        QFETCH(ErrorCode, code);
        const QString path = m_dir.filePath("some/store.sqlite");
        const QSqlError error("Unable to fetch row", sqliteText, QSqlError::StatementError, nativeCode);
        const Error e = store::storeError(path, "SQL failed", error, "INSERT INTO tasks VALUES (1)");
        QCOMPARE(e.code, code);
        QVERIFY2(e.message.contains(says.arg(path)), qPrintable(e.message));
        QVERIFY2(!e.message.contains("is not a KernelMosaic store") || nativeCode == "26", qPrintable(e.message));
    }

    // A write that needs more pages than the file may have (SQLite's own limit standing in for a full disk) says so
    // with the path, and what was stored stays.
    void aFullFileSaysFull()
    {
        const QString path = newPath();
        auto store = openStore(path);
        QVERIFY(store);
        VERIFY_OK(store->upsertTask(filterTasks().first(), "test", "seed"));
        const qint64 pages = scalar(store->database(), "PRAGMA page_count");
        QVERIFY(pages > 0);
        VERIFY_OK(store->database().exec(QStringLiteral("PRAGMA max_page_count=%1").arg(pages + 2)));
        Task big = filterTasks().at(1);
        big.description = QString(600 * 1024, QLatin1Char('x'));
        auto r = store->upsertTask(big, "test", "too big");
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Io);
        QVERIFY2(r.error().message.contains(QStringLiteral("cannot write the store %1: the disk is full").arg(path)),
                 qPrintable(r.error().message));
        QCOMPARE(store->count().value(), 1);
    }
};

QTEST_GUILESS_MAIN(TestStoreEdges)
#include "test_store_edges.moc"
