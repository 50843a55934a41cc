// StepTimeline and SpeedupChart on the shipped demonstrations: marks per lane, colours by status, selection by
// click and by Left/Right/Home/End, tooltips; the chart's series (speedup, best so far) and a click on a point.
#include "ReplayFixture.h"
#include "replay/SpeedupChart.h"
#include "replay/StepColors.h"
#include "replay/StepTimeline.h"

#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>

using namespace km;
using namespace km::replay;

class TestStepTimeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void marksGoIntoTheirStagesLanes()
    {
        const test::ReplayRun gelu = test::demonstration(QStringLiteral("gelu-tanh"));  // implement, repair, optimise
        StepTimeline t;
        t.resize(500, t.sizeHint().height());
        t.setSteps(gelu.steps);
        QCOMPARE(t.laneOfIdx(0), 0);
        QCOMPARE(t.laneOfIdx(1), 1);
        QCOMPARE(t.laneOfIdx(2), 2);
        QCOMPARE(t.laneOfIdx(7), -1);
        // One lane below the other, one step right of the one before.
        QVERIFY(t.markRect(0).center().y() < t.markRect(1).center().y());
        QVERIFY(t.markRect(1).center().y() < t.markRect(2).center().y());
        QVERIFY(t.markRect(0).center().x() < t.markRect(1).center().x());

        // Over every demonstration: how many marks each lane holds.
        int perLane[kLaneCount] = {0, 0, 0};
        int steps = 0;
        for (const test::ReplayRun& r : test::demonstrations()) {
            t.setSteps(r.steps);
            for (const StepSummary& s : r.steps) {
                ++perLane[t.laneOfIdx(s.idx)];
                ++steps;
            }
        }
        QCOMPARE(steps, 14);
        QCOMPARE(perLane[0], 7);  // every run starts implementing; row-sum implements twice
        QCOMPARE(perLane[1], 3);  // gelu, rmsnorm and column-max repaired
        QCOMPARE(perLane[2], 4);
    }

    void statusColours()
    {
        QCOMPARE(statusColor("PASSED").name(), QColor(0x2e, 0x9d, 0x4f).name());
        QCOMPARE(statusColor("COMPILE_ERROR").name(), statusColor("RUNTIME_ERROR").name());
        QCOMPARE(statusColor("INCORRECT_NUMERICAL").name(), statusColor("INCORRECT_SHAPE").name());
        QStringList distinct;
        for (const char* s : {"PASSED", "COMPILE_ERROR", "INCORRECT_NUMERICAL", "REWARD_HACK", ""})
            distinct << statusColor(s).name();
        distinct.removeDuplicates();
        QCOMPARE(distinct.size(), 5);
    }

    void clickAndKeysSelectAndEmitTheIdx()
    {
        StepTimeline t;
        t.setSteps(test::demonstration(QStringLiteral("gelu-tanh")).steps);
        t.resize(500, t.sizeHint().height());
        t.show();
        QVERIFY(QTest::qWaitForWindowExposed(&t));
        QSignalSpy clicked(&t, &StepTimeline::stepClicked);

        QTest::mouseClick(&t, Qt::LeftButton, {}, t.markRect(1).center());
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.takeFirst().at(0).toInt(), 1);
        QCOMPARE(t.currentIdx(), 1);
        QTest::mouseClick(&t, Qt::LeftButton, {}, QPoint(2, 2));  // on a lane's name: no mark
        QCOMPARE(clicked.size(), 0);

        const auto press = [&](Qt::Key key) {
            QTest::keyClick(&t, key);
            return clicked.isEmpty() ? -100 : clicked.takeFirst().at(0).toInt();
        };
        QCOMPARE(press(Qt::Key_Right), 2);
        QCOMPARE(press(Qt::Key_Right), 2);  // stays on the last
        QCOMPARE(press(Qt::Key_Home), 0);
        QCOMPARE(press(Qt::Key_Left), 0);
        QCOMPARE(press(Qt::Key_End), 2);
        QCOMPARE(press(Qt::Key_Left), 1);
        QCOMPARE(t.currentIdx(), 1);
    }

    void tooltipsSummariseTheStep()
    {
        StepTimeline t;
        t.setSteps(test::demonstration(QStringLiteral("gelu-tanh")).steps);
        QVERIFY(t.markToolTip(0).contains("COMPILE_ERROR"));
        QVERIFY(t.markToolTip(0).contains("identifier \"GELU\" is undefined"));
        QVERIFY(t.markToolTip(2).contains("PASSED"));
        QVERIFY(t.markToolTip(2).contains("9.79x"));
        t.setSteps(test::demonstration(QStringLiteral("row-sum")).steps);
        QVERIFY(t.markToolTip(0).contains("no verdict"));
        QVERIFY(t.markToolTip(0).contains("no code block"));
    }

    void chartSeriesHoldSpeedupAndBestSoFar()
    {
        SpeedupChart c;
        c.setSteps(test::demonstration(QStringLiteral("rmsnorm")).steps);  // INCORRECT 3.82, PASSED 3.85, 3.62
        QCOMPARE(c.pointSeries()->count(), 3);
        QCOMPARE(c.speedupSeries()->count(), 3);
        const QList<QPointF> best = c.bestSeries()->points();
        QCOMPARE(best.size(), 2);  // from the first passed step on; a wrong kernel's speed is no best
        QCOMPARE(best[0].x(), 2.0);
        QVERIFY(qAbs(best[0].y() - 3.8464) < 1e-3);
        QVERIFY(qAbs(best[1].y() - 3.8464) < 1e-3);  // 3.62 is slower: the best stays

        c.setSteps(test::demonstration(QStringLiteral("gelu-tanh")).steps);
        QCOMPARE(c.pointSeries()->count(), 3);
        QCOMPARE(c.speedupSeries()->count(), 2);  // the compile error has no speedup
        QCOMPARE(c.bestSeries()->points().constLast().y(), 9.793245150417102);
    }

    void chartClickMapsToAStep()
    {
        SpeedupChart c;
        c.setSteps(test::demonstration(QStringLiteral("gelu-tanh")).steps);
        c.resize(640, 320);
        c.show();
        QVERIFY(QTest::qWaitForWindowExposed(&c));
        QSignalSpy clicked(&c, &SpeedupChart::stepClicked);
        for (int idx : {2, 0, 1}) {
            const QPoint at = c.pointPosition(idx);
            QVERIFY(c.rect().contains(at));
            QCOMPARE(c.stepAt(at), idx);
            QTest::mouseClick(c.viewport(), Qt::LeftButton, {}, at + QPoint(3, -2));
            QCOMPARE(clicked.size(), 1);
            QCOMPARE(clicked.takeFirst().at(0).toInt(), idx);
            QCOMPARE(c.currentIdx(), idx);
        }
        QCOMPARE(c.stepAt(QPoint(1, 1)), -1);  // outside the plot
    }
};

QTEST_MAIN(TestStepTimeline)
#include "test_step_timeline.moc"
