// The JSON reader/writer keeps integer and float apart and reports errors with line and column.
#include "util/Json.h"

#include <QtTest>
#include <cmath>
#include <limits>

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
        QTest::newRow("duplicate key on line 3")
            << QByteArray("{\n \"a\": 1,\n   \"a\": 2}") << 3 << 4 << "duplicate key \"a\"";
        QTest::newRow("error in a duplicate's value first") << QByteArray("{\"a\":1,\"a\":[}") << 1 << 13 << "'}'";
        QTest::newRow("float beyond double") << QByteArray("[1e400]") << 1 << 2 << "malformed number '1e400'";
        QTest::newRow("float below double") << QByteArray("[1, -1e-400]") << 1 << 5 << "malformed number '-1e-400'";
        QTest::newRow("infinity") << QByteArray("[inf]") << 1 << 2 << "unexpected character 'i'";
        QTest::newRow("NaN") << QByteArray("{\"x\": NaN}") << 1 << 7 << "unexpected character 'N'";
        QTest::newRow("number glued to another") << QByteArray("[1.5.5]") << 1 << 2 << "malformed number '1.5.5'";
        QTest::newRow("leading zero") << QByteArray("[01]") << 1 << 2 << "malformed number '01'";
        QTest::newRow("nothing after the point") << QByteArray("[1.]") << 1 << 2 << "malformed number '1.'";
        QTest::newRow("unknown escape") << QByteArray("[\"a\\qb\"]") << 1 << 5 << "unknown escape '\\q'";
        QTest::newRow("short \\u escape") << QByteArray("\"\\u12g4\"") << 1 << 4 << "bad \\u escape";
        QTest::newRow("lone surrogate") << QByteArray("\"\\ud800x\"") << 1 << 8 << "surrogate";
        QTest::newRow("backslash at the end") << QByteArray("[\"ab\\") << 1 << 2 << "unterminated";
        QTest::newRow("NUL after the value") << QByteArray("[1]\0", 4) << 1 << 4 << "after the JSON value";
        QTest::newRow("NUL inside an array") << QByteArray("[1,\0]", 5) << 1 << 4 << "unexpected character";
        QTest::newRow("byte order mark") << QByteArray("\xEF\xBB\xBF{}") << 1 << 1 << "unexpected character";
        QTest::newRow("column counts bytes of the original text")
            << QByteArray("[\"\xff\xfe\", x]") << 1 << 8 << "unexpected character 'x'";
        QTest::newRow("true glued to a number") << QByteArray("[true1]") << 1 << 6 << "expected ',' or ']'";
        QTest::newRow("missing key") << QByteArray("{\"a\":1,}") << 1 << 8 << "quoted object key";
        QTest::newRow("end inside an object") << QByteArray("{\"a\":1") << 1 << 7 << "expected ',' or '}'";
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

    void integersBeyondDoublePrecisionAreExact()
    {
        const auto v = json::parse("[9007199254740993,-9223372036854775808,9223372036854775807]", nullptr);
        QVERIFY(v);
        const QVariantList l = v->toList();
        QCOMPARE(l.value(0).typeId(), int(QMetaType::LongLong));
        QCOMPARE(l.value(0).toLongLong(), Q_INT64_C(9007199254740993));  // 2^53 + 1: a double would round it
        QCOMPARE(l.value(1).toLongLong(), std::numeric_limits<qint64>::min());
        QCOMPARE(l.value(2).toLongLong(), std::numeric_limits<qint64>::max());
        // Beyond qint64 an integer reads as the nearest double.
        const auto big = json::parse("18446744073709551615", nullptr);
        QVERIFY(big);
        QCOMPARE(big->typeId(), int(QMetaType::Double));
        QCOMPARE(big->toDouble(), 18446744073709551615.0);
    }

    void negativeZeroIsAFloat()
    {
        const auto v = json::parse("[-0.0,-0]", nullptr);
        QVERIFY(v);
        const QVariantList l = v->toList();
        QCOMPARE(l.value(0).typeId(), int(QMetaType::Double));
        QVERIFY(std::signbit(l.value(0).toDouble()));
        QCOMPARE(l.value(1).typeId(), int(QMetaType::LongLong));
        QCOMPARE(json::write(*v), QByteArray("[0.0,0]"));  // the writer prints no sign on a zero, as it always did
    }

    void illFormedUtf8ReadsAsReplacementCharacter()
    {
        const auto v = json::parse("{\"k\xff\":\"a\xc3(\\u00fc\xe2\x82\"}", nullptr);
        QVERIFY(v);
        const QVariantMap m = v->toMap();
        QCOMPARE(m.keys(), QStringList{QStringLiteral("k\uFFFD")});
        // A sequence cut short (\xe2\x82 of a three-byte character) is one U+FFFD per byte, as in QString::fromUtf8.
        QCOMPARE(m.value("k\uFFFD").toString(), QStringLiteral("a\uFFFD(\u00fc\uFFFD\uFFFD"));
    }

    void escapesDecode()
    {
        const auto v = json::parse(R"(["\u0000\ud83d\ude00\/\b\f"])", nullptr);
        QVERIFY(v);
        QCOMPARE(v->toList().value(0).toString(), QString(QChar(0)) + QStringLiteral("\U0001F600/\b\f"));
    }

    void nestingUpTo256LevelsIsRead()
    {
        const QByteArray ok = QByteArray(256, '[') + '1' + QByteArray(256, ']');
        QVERIFY(json::parse(ok, nullptr).has_value());
        const QByteArray deeper = QByteArray(257, '[') + '1' + QByteArray(257, ']');
        json::ParseError err;
        QVERIFY(!json::parse(deeper, &err).has_value());
        QVERIFY2(err.reason.contains("nesting"), qPrintable(err.reason));
        QCOMPARE(err.column, 258);
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
