// Reading rows by column name (store/Row): a column the query returns reads its value whatever its position; one it
// does not return reads as null and turns into the error "column X missing from the query", never another column.
#include "StoreTestSupport.h"
#include "store/Row.h"

using namespace km::storetest;

class TestRow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto db = store::Database::open(m_dir.filePath(QStringLiteral("r%1.sqlite").arg(++m_n)));
        QVERIFY2(db.ok(), db.ok() ? "" : qPrintable(db.error().message));
        m_db = std::move(db).value();
    }

    void columnsAreReadByName()
    {
        auto q = m_db->exec(QStringLiteral("SELECT 'b' AS second, 7 AS first, NULL AS none, 2.5 AS real"));
        VERIFY_OK(q);
        QVERIFY(q.value().next());
        store::Row row(q.value());
        QCOMPARE(row.integer("first"), qint64(7));
        QCOMPARE(row.text("second"), QStringLiteral("b"));
        QVERIFY(row.isNull("none"));
        QCOMPARE(row.optionalReal("none"), std::optional<double>());
        QCOMPARE(row.optionalReal("real"), std::optional<double>(2.5));
        VERIFY_OK(row.status());
    }

    void aMissingColumnIsAnError()
    {
        auto q = m_db->exec(QStringLiteral("SELECT 1 AS id, 'x' AS title"));
        VERIFY_OK(q);
        QVERIFY(q.value().next());
        store::Row row(q.value());
        QVERIFY(!row.value("titel").isValid());  // not the neighbouring column
        QCOMPARE(row.text("title"), QStringLiteral("x"));
        QVERIFY(!row.value("other").isValid());
        const Status st = row.status();
        QVERIFY(!st.ok());
        QCOMPARE(st.error().code, ErrorCode::Database);
        QCOMPARE(st.error().message, QStringLiteral("column titel missing from the query"));  // the first one
    }

    void readRowsStopsAtTheFirstError()
    {
        auto q = m_db->exec(QStringLiteral("SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3 ORDER BY n"));
        VERIFY_OK(q);
        int calls = 0;
        auto all = store::readRows<qint64>(q.value(), [&calls](store::Row& row) -> Result<qint64> {
            ++calls;
            const qint64 n = row.integer("n");
            if (n == 2)
                return makeError(ErrorCode::Database, QStringLiteral("row 2 is damaged"));
            return n;
        });
        QVERIFY(!all.ok());
        QCOMPARE(all.error().message, QStringLiteral("row 2 is damaged"));
        QCOMPARE(calls, 2);

        auto again = m_db->exec(QStringLiteral("SELECT 1 AS n UNION ALL SELECT 2 ORDER BY n"));
        VERIFY_OK(again);
        auto ok =
            store::readRows<qint64>(again.value(), [](store::Row& row) -> Result<qint64> { return row.integer("n"); });
        VERIFY_OK(ok);
        QCOMPARE(ok.value(), (QList<qint64>{1, 2}));
    }

private:
    QTemporaryDir m_dir;
    int m_n = 0;
    std::unique_ptr<store::Database> m_db;
};

QTEST_GUILESS_MAIN(TestRow)
#include "test_row.moc"
