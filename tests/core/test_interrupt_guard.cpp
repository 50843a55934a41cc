// InterruptGuard: SIGINT/SIGTERM arrive as a Qt signal on the guard's thread; the previous handlers come back when
// it goes; only one guard at a time.
#include "util/InterruptGuard.h"

#include <QSignalSpy>
#include <QtTest>
#include <csignal>

using km::InterruptGuard;

namespace {
void (*currentHandler(int sig))(int)
{
    struct sigaction sa = {};
    ::sigaction(sig, nullptr, &sa);
    return sa.sa_handler;
}
}  // namespace

class TestInterruptGuard : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aSignalBecomesAQtSignal()
    {
        InterruptGuard guard;
        QVERIFY(guard.active());
        QSignalSpy spy(&guard, &InterruptGuard::interrupted);
        ::raise(SIGINT);  // the process survives: the guard took it
        QVERIFY(spy.wait(5000));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), int(SIGINT));
    }

    void theHandlersComeBackAfterwards()
    {
        ::signal(SIGTERM, SIG_IGN);
        const auto before = currentHandler(SIGINT);  // whatever the test framework installed
        {
            InterruptGuard guard;
            QVERIFY(currentHandler(SIGTERM) != SIG_IGN);
            QVERIFY(currentHandler(SIGINT) != before);
        }
        QVERIFY(currentHandler(SIGTERM) == SIG_IGN);
        QVERIFY(currentHandler(SIGINT) == before);
        ::signal(SIGTERM, SIG_DFL);
    }

    void oneGuardAtATime()
    {
        InterruptGuard first;
        InterruptGuard second;
        QVERIFY(first.active());
        QVERIFY(!second.active());
    }
};

QTEST_GUILESS_MAIN(TestInterruptGuard)
#include "test_interrupt_guard.moc"
