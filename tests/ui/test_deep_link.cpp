// The workbench's links (controller/DeepLink): every form parses to the view it names and prints back the same;
// every malformed link is refused with a message naming the part that is wrong.
#include "controller/DeepLink.h"

#include <QtTest>

using km::ui::DeepLink;

Q_DECLARE_METATYPE(km::ui::DeepLink)

class TestDeepLink : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<DeepLink>("link");
        QTest::newRow("run") << "run/12" << DeepLink::toRun(12);
        QTest::newRow("run step 1 is index 0") << "run/12/step/1" << DeepLink::toRun(12, 0);
        QTest::newRow("run step 3") << "run/7/step/3" << DeepLink::toRun(7, 2);
        QTest::newRow("solution") << "solution/40" << DeepLink::toSolution(40);
        QTest::newRow("task") << "task/leaky-relu" << DeepLink::toTask(QStringLiteral("leaky-relu"));
    }
    void roundTrip()
    {
        QFETCH(QString, text);
        QFETCH(DeepLink, link);
        auto parsed = km::ui::parseDeepLink(text);
        QVERIFY2(parsed.ok(), parsed ? "" : qPrintable(parsed.error().message));
        QVERIFY(parsed.value() == link);
        QCOMPARE(toString(link), text);
        QCOMPARE(commandLine(link), QStringLiteral("kmosaic-workbench --open ") + text);
        QVERIFY(km::ui::parseDeepLink(QStringLiteral("  %1\n").arg(text)).ok());  // pasted with spaces
    }

    void refused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << ""
                               << "links start with task/, run/ or solution/";
        QTest::newRow("unknown") << "step/3"
                                 << "'step/3': links start with task/, run/ or solution/";
        QTest::newRow("run id") << "run/x"
                                << "'run/x': 'x' is not a run id";
        QTest::newRow("run zero") << "run/0"
                                  << "'0' is not a run id";
        QTest::newRow("negative") << "run/-4"
                                  << "'-4' is not a run id";
        QTest::newRow("no step word") << "run/3/2"
                                      << "a run link is run/ID or run/ID/step/N";
        QTest::newRow("step zero") << "run/3/step/0"
                                   << "'0' is not a step number (they count from 1)";
        QTest::newRow("step text") << "run/3/step/last"
                                   << "'last' is not a step number";
        QTest::newRow("trailing") << "run/3/step/2/x"
                                  << "a run link is run/ID or run/ID/step/N";
        QTest::newRow("solution id") << "solution/abc"
                                     << "'abc' is not a solution id";
        QTest::newRow("solution extra") << "solution/3/4"
                                        << "a solution link is solution/ID";
        QTest::newRow("task empty") << "task/"
                                    << "a task link is task/ID";
    }
    void refused()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        auto parsed = km::ui::parseDeepLink(text);
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().code, km::ErrorCode::InvalidInput);
        QVERIFY2(parsed.error().message.contains(message), qPrintable(parsed.error().message));
    }
};

QTEST_GUILESS_MAIN(TestDeepLink)
#include "test_deep_link.moc"
