// Re-verify from the solution review through a real ServiceHost and harness worker on the CPU: the new verdict is
// stored beside the old one, progress is reported, the gate reads the new verdict; a cancelled re-verify stores
// nothing and says so.
#include "../common/HonestLeakyRelu.h"
#include "../common/SolutionFixture.h"
#include "StoreWorkerWait.h"
#include "services/ServiceHost.h"
#include "solutions/SolutionsController.h"

#include <QSignalSpy>
#include <QtTest>

using namespace km;
using namespace km::ui;

namespace {
const QString kPassing = km::test::honestLeakyRelu();
}  // namespace

class TestSolutionsReverify : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_store = test::solutionStore(m_dir);
        QVERIFY(m_store);
        Verdict wrong = test::gpuPassedVerdict();
        wrong.status = VerdictStatus::IncorrectNumerical;  // as an older harness judged it
        m_id = test::recordSolution(*m_store, kPassing, wrong);
        QVERIFY(m_id);
        m_worker = test::openWorker(m_store->path());
        ExecutorSettings executor;
        executor.device = QStringLiteral("cpu");
        executor.singleWorker = true;
        m_host = std::make_unique<ServiceHost>(
            ServiceHost::Config{m_store->path(), executor, QStringLiteral("ana"), {}, harnessLaunch({})});
        QSignalSpy ready(m_host.get(), &ServiceHost::ready);
        m_host->start();
        QVERIFY(ready.wait(30000));
        QVERIFY(ready.first().at(0).toBool());
        m_controller = std::make_unique<SolutionsController>(*m_worker, m_host.get(), QStringLiteral("ana"));
        VerifyOptions o;
        o.device = QStringLiteral("cpu");
        o.seeds = 1;
        o.timeoutS = 120;
        o.memoryMb = 4096;
        m_controller->setVerifyOptions(o);
    }

    void reverifyKeepsTheOldVerdictBesideTheNew()
    {
        QSignalSpy progress(m_controller.get(), &SolutionsController::verifyProgress);
        QSignalSpy finished(m_controller.get(), &SolutionsController::verifyFinished);
        m_controller->selectSolution(m_id);
        m_controller->reverify(m_id);
        QVERIFY(m_controller->verifying());
        QVERIFY(finished.wait(300000));
        QCOMPARE(finished.first().at(0).toLongLong(), m_id);
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(2).toString()));
        QVERIFY(finished.first().at(2).toString().contains(QLatin1String("PASSED")));
        QVERIFY(progress.size() >= 2);  // read, queued, then the harness's phases
        QVERIFY(!m_controller->verifying());
        QVERIFY(test::settle(*m_worker));
        QTRY_VERIFY(m_controller->current() && m_controller->current()->verdicts.size() == 2);
        const SolutionDetail& d = *m_controller->current();
        QCOMPARE(toString(d.verdicts.at(0).status), toString(VerdictStatus::Passed));
        QCOMPARE(toString(d.verdicts.at(1).status), toString(VerdictStatus::IncorrectNumerical));
        QCOMPARE(gateRuleIdsOf(d.unmetGate), QStringList{"gpu"});  // measured on the CPU this time
    }

    void aCancelledReverifyStoresNothing()
    {
        const int before = int(SolutionReviewService(m_store->database()).detail(m_id)->verdicts.size());
        QSignalSpy finished(m_controller.get(), &SolutionsController::verifyFinished);
        m_controller->reverify(m_id);
        m_controller->cancelVerify();
        QVERIFY(finished.wait(300000));
        QCOMPARE(finished.first().at(1).toBool(), false);
        QCOMPARE(finished.first().at(2).toString(), QStringLiteral("cancelled"));
        QCOMPARE(int(SolutionReviewService(m_store->database()).detail(m_id)->verdicts.size()), before);
    }

    void cleanupTestCase()
    {
        m_controller.reset();
        m_host.reset();
        m_worker.reset();
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<TaskStore> m_store;
    std::unique_ptr<StoreWorker> m_worker;
    std::unique_ptr<ServiceHost> m_host;
    std::unique_ptr<SolutionsController> m_controller;
    qint64 m_id = 0;
};

QTEST_MAIN(TestSolutionsReverify)
#include "test_solutions_reverify.moc"
