// The JSON reader/writer keeps integer and float apart and reports errors with line and column.
#include "util/Json.h"

#include <QtTest>

using namespace km;

class TestJson : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("integer") << QByteArray("16");
        QTest::newRow("integral float") << QByteArray("16.0");
        QTest::newRow("small float") << QByteArray("0.0001");
        QTest::newRow("negative exponent") << QByteArray("-2.5e-07");
        QTest::newRow("big integer") << QByteArray("1152921504606846976");
        QTest::newRow("string escapes") << QByteArray("\"a\\\"b\\\\c\\nd\\te\\u0001\"");
        QTest::newRow("unicode") << QByteArray("\"\xc3\xbc\xe2\x82\xac\"");
        QTest::newRow("nested") << QByteArray("{\"a\":[1,2.0,true,false,null,\"x\"],\"b\":{\"c\":[]}}");
    }
    void roundTrip()
    {
        QFETCH(QByteArray, text);
        json::ParseError err;
        const auto v = json::parse(text, &err);
        QVERIFY2(v.has_value(), qPrintable(err.reason));
        QCOMPARE(json::write(*v), text);
    }

    void keepsIntegerAndFloatApart()
    {
        const auto v = json::parse("{\"i\":16,\"f\":16.0}", nullptr);
        QVERIFY(v);
        const QVariantMap m = v->toMap();
        QCOMPARE(m.value("i").typeId(), int(QMetaType::LongLong));
        QCOMPARE(m.value("f").typeId(), int(QMetaType::Double));
        QCOMPARE(json::write(QVariant(3.0)), QByteArray("3.0"));
        QCOMPARE(json::write(QVariant(qint64(3))), QByteArray("3"));
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("reasonPart");
        QTest::newRow("unterminated") << QByteArray("{\"a\": \"x") << 1 << 7 << "unterminated";
        QTest::newRow("second line") << QByteArray("{\"a\": 1,\n  \"b\" 2}") << 2 << 7 << "expected ':'";
        QTest::newRow("trailing") << QByteArray("[1] x") << 1 << 5 << "after the JSON value";
        QTest::newRow("duplicate key") << QByteArray("{\"a\":1,\"a\":2}") << 1 << 8 << "duplicate key";
        QTest::newRow("bad literal") << QByteArray("[tru]") << 1 << 2 << "unexpected character";
        QTest::newRow("empty") << QByteArray("") << 1 << 1 << "end of input";
        QTest::newRow("control char") << QByteArray("\"a\nb\"") << 1 << 3 << "control character";
    }
    void errors()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, reasonPart);
        json::ParseError err;
        QVERIFY(!json::parse(text, &err).has_value());
        QVERIFY2(err.reason.contains(reasonPart), qPrintable(err.reason));
        QCOMPARE(err.line, line);
        QCOMPARE(err.column, column);
    }

    void deepNestingIsRefusedNotCrashed()
    {
        const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
        json::ParseError err;
        QVERIFY(!json::parse(deep, &err).has_value());
        QVERIFY(err.reason.contains("nesting"));
    }
};

QTEST_GUILESS_MAIN(TestJson)
#include "test_json.moc"
