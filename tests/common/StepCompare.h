#pragma once
// One trajectory step's content (everything but store ids) compared field by field, for the tests that carry
// steps through a bundle or a store and back. Call it, then `if (QTest::currentTestFailed()) return;`.

#include "model/Trajectory.h"
#include "util/Json.h"

#include <QtTest>

namespace km::test {

inline void compareStepContent(const TrajectoryStep& y, const TrajectoryStep& x)
{
    QCOMPARE(y.idx, x.idx);
    QCOMPARE(toString(y.stage), toString(x.stage));
    QCOMPARE(y.templateName, x.templateName);
    QCOMPARE(json::write(y.messages), json::write(x.messages));
    QCOMPARE(y.prompt, x.prompt);
    QCOMPARE(y.reply, x.reply);
    QCOMPARE(y.code, x.code);
    QCOMPARE(y.diff, x.diff);
    QCOMPARE(y.error, x.error);
    QCOMPARE(y.guidance, x.guidance);
    QCOMPARE(json::write(y.usage), json::write(x.usage));
    QCOMPARE(y.tokensIn, x.tokensIn);
    QCOMPARE(y.tokensOut, x.tokensOut);
    QCOMPARE(y.latencyMs, x.latencyMs);
    QCOMPARE(y.verifyMs, x.verifyMs);
    QCOMPARE(y.status, x.status);
    QVERIFY(y.speedup == x.speedup);
    QCOMPARE(y.summary, x.summary);
    QCOMPARE(y.createdAt, x.createdAt);
}

}  // namespace km::test
