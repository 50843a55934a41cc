// The multi-GPU executor with real harness workers on the CPU: two "GPUs" of the hand-written eight-GPU fixture
// (tests/data/nvidia-smi), each a worker launched with CUDA_VISIBLE_DEVICES=<its uuid> and verifying on the CPU.
// Scheduling over both, two workers sharing one GPU, the GPU in each verdict, cancellation, a worker that cannot
// start taken out of rotation (its request retried on the other; its GPU's other workers with it), and a solution's
// own CUDA error that leaves a healthy GPU in rotation.

#include "curate/TaskFolder.h"
#include "verify/HarnessLaunch.h"
#include "verify/MultiGpuExecutor.h"
#include "verify/Verifier.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;

namespace {
const QString kCorpus = QStringLiteral(KMOSAIC_TEST_SOURCE_DIR "/verify/corpus");
constexpr int kWaitMs = 300000;

QList<GpuDevice> fixtureGpus()
{
    QFile f(QStringLiteral(KMOSAIC_TEST_DATA "/nvidia-smi/query-gpu-8xh100-synthetic.csv"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return parseGpuQuery(QString::fromUtf8(f.readAll())).value().mid(0, 2);
}

VerifyJob job(const QString& source)
{
    VerifyJob j;
    QList<ImportIssue> issues;
    if (const auto task = readTaskFolder(QStringLiteral(KMOSAIC_TASKS_DIR "/leaky-relu"), &issues))
        j.task = *task;
    j.solutionSource = source;
    j.solutionPath = QStringLiteral("solution.py");
    j.options.device = QStringLiteral("cpu");
    j.options.timeoutS = 60;
    j.options.memoryMb = 4096;
    j.options.fileMb = 64;
    return j;
}

VerifyJob corpusJob(const QString& file)
{
    QFile f(kCorpus + QLatin1Char('/') + file);
    return job(f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString());
}

// Collects the verdicts of one Verifier by ticket.
struct Verdicts {
    explicit Verdicts(Verifier& v)
    {
        QObject::connect(&v, &Verifier::verdictReady, &v,
                         [this](quint64 t, const Verdict& d) { byTicket.insert(t, d); });
    }
    QHash<quint64, Verdict> byTicket;
};

QVariantMap gpuOf(const Verdict& v)
{
    return v.evidence.value(QStringLiteral("gpu")).toMap();
}
}  // namespace

class TestMultiGpuExecutor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QCOMPARE(fixtureGpus().size(), 2); }

    void faultsThatMayBeTheGpus_data()
    {
        QTest::addColumn<QVariantMap>("verdict");
        QTest::addColumn<QString>("error");
        QTest::addColumn<bool>("suspect");
        const auto withError = [](const char* status, const char* message) {
            return QVariantMap{
                {QStringLiteral("status"), QString::fromLatin1(status)},
                {QStringLiteral("error"), QVariantMap{{QStringLiteral("message"), QString::fromLatin1(message)}}}};
        };
        QTest::newRow("passed") << QVariantMap{{QStringLiteral("status"), QStringLiteral("PASSED")}} << QString()
                                << false;
        QTest::newRow("worker died") << QVariantMap() << QStringLiteral("the harness worker crashed") << true;
        QTest::newRow("cancelled") << QVariantMap() << QStringLiteral("cancelled") << false;
        QTest::newRow("refused") << QVariantMap() << QStringLiteral("the harness refused the request: bad") << false;
        QTest::newRow("system error") << withError("SYSTEM_ERROR", "harness bug") << QString() << true;
        QTest::newRow("launch failure") << withError("RUNTIME_ERROR", "CUDA error: unspecified launch failure")
                                        << QString() << true;
        QTest::newRow("illegal address") << withError("RUNTIME_ERROR", "an illegal memory access was encountered")
                                         << QString() << true;
        QTest::newRow("python error") << withError("RUNTIME_ERROR", "NameError: name 'y' is not defined") << QString()
                                      << false;
    }
    void faultsThatMayBeTheGpus()
    {
        QFETCH(QVariantMap, verdict);
        QFETCH(QString, error);
        QFETCH(bool, suspect);
        QCOMPARE(MultiGpuExecutor::mayBeGpuFault(verdict, error), suspect);
    }

    void requestsSpreadOverBothGpusEachPinned()
    {
        const QList<GpuDevice> gpus = fixtureGpus();
        MultiGpuExecutor executor(gpus, harnessLaunch({}), QStringLiteral("cpu"));
        QCOMPARE(executor.name(), QStringLiteral("local (2 GPUs)"));
        executor.warmUp();
        Verifier verifier(executor);
        Verdicts got(verifier);
        QList<quint64> tickets;
        for (int i = 0; i < 4; ++i)
            tickets << verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        const quint64 queued = verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        verifier.cancel(queued);  // still queued: reported at once
        QTRY_COMPARE_WITH_TIMEOUT(got.byTicket.size(), 5, kWaitMs);
        QCOMPARE(got.byTicket.value(queued).evidence.value(QStringLiteral("error")).toMap().value("message").toString(),
                 QStringLiteral("cancelled"));
        QHash<QString, QSet<qint64>> pidsByGpu;
        for (quint64 t : tickets) {
            const Verdict& v = got.byTicket.value(t);
            QCOMPARE(toString(v.status), QStringLiteral("INCORRECT_SHAPE"));
            const QString uuid = gpuOf(v).value(QStringLiteral("uuid")).toString();
            QVERIFY2(uuid == gpus[0].uuid || uuid == gpus[1].uuid, qPrintable(uuid));
            QCOMPARE(gpuOf(v).value(QStringLiteral("index")).toInt(), uuid == gpus[0].uuid ? 0 : 1);
            QCOMPARE(gpuOf(v).value(QStringLiteral("name")).toString(), QStringLiteral("NVIDIA H100 80GB HBM3"));
            // The worker that measured it was started with CUDA_VISIBLE_DEVICES=<that GPU's uuid>.
            QCOMPARE(v.environment.value(QStringLiteral("cuda_visible_devices")).toString(), uuid);
            pidsByGpu[uuid].insert(v.environment.value(QStringLiteral("worker_pid")).toLongLong());
        }
        QCOMPARE(pidsByGpu.size(), 2);                      // both GPUs served
        QCOMPARE(pidsByGpu.value(gpus[0].uuid).size(), 1);  // one long-lived worker each
        QVERIFY(pidsByGpu.value(gpus[0].uuid) != pidsByGpu.value(gpus[1].uuid));
    }

    void twoWorkersShareOneGpu()
    {
        const GpuDevice gpu = fixtureGpus().first();
        MultiGpuExecutor executor({gpu}, harnessLaunch({}), QStringLiteral("cpu"), 2);
        QCOMPARE(executor.name(), QStringLiteral("local (1 GPU, 2 workers)"));
        QCOMPARE(executor.parallelism(), 2);
        executor.warmUp();
        Verifier verifier(executor);
        Verdicts got(verifier);
        for (int i = 0; i < 4; ++i)
            verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        QTRY_COMPARE_WITH_TIMEOUT(got.byTicket.size(), 4, kWaitMs);
        QSet<qint64> pids;
        for (const Verdict& v : std::as_const(got.byTicket)) {
            QCOMPARE(toString(v.status), QStringLiteral("INCORRECT_SHAPE"));
            QCOMPARE(gpuOf(v).value(QStringLiteral("uuid")).toString(), gpu.uuid);
            QCOMPARE(v.environment.value(QStringLiteral("cuda_visible_devices")).toString(), gpu.uuid);
            pids.insert(v.environment.value(QStringLiteral("worker_pid")).toLongLong());
        }
        QCOMPARE(pids.size(), 2);  // both workers of that GPU verified
    }

    // A GPU that fails its health check leaves with all of its workers, not only the one that found the fault.
    void aFailedGpuTakesItsOtherWorkersAlong()
    {
        const GpuDevice gpu = fixtureGpus().first();
        HarnessLaunch broken = harnessLaunch({});
        broken.program = QStringLiteral("/nonexistent/python3");
        MultiGpuExecutor executor({{gpu, MultiGpuExecutor::pinnedLaunch(broken, gpu)},
                                   {gpu, MultiGpuExecutor::pinnedLaunch(harnessLaunch({}), gpu)}},
                                  QStringLiteral("cpu"));
        QSignalSpy removed(&executor, &MultiGpuExecutor::gpuRemoved);
        Verifier verifier(executor);
        Verdicts got(verifier);
        verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        QTRY_COMPARE_WITH_TIMEOUT(removed.size(), 1, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(got.byTicket.size(), 1, kWaitMs);
        const quint64 after = verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        QTRY_VERIFY_WITH_TIMEOUT(got.byTicket.contains(after), kWaitMs);
        const QString error = got.byTicket.value(after)
                                  .evidence.value(QStringLiteral("error"))
                                  .toMap()
                                  .value(QStringLiteral("message"))
                                  .toString();
        QVERIFY2(error.startsWith(QStringLiteral("no GPU is left in rotation")), qPrintable(error));
        QCOMPARE(executor.gpusInRotation(), 0);
    }

    void cancelStopsTheVerificationInFlight()
    {
        MultiGpuExecutor executor(fixtureGpus().mid(0, 1), harnessLaunch({}), QStringLiteral("cpu"));
        Verifier verifier(executor);
        Verdicts got(verifier);
        QSignalSpy phases(&verifier, &Verifier::phase);
        const quint64 hang = verifier.verify(corpusJob(QStringLiteral("malformed/infinite_loop.py")));
        QVERIFY(phases.wait(kWaitMs));  // it is in flight
        verifier.cancel(hang);
        QTRY_COMPARE_WITH_TIMEOUT(got.byTicket.size(), 1, 10000);
        QCOMPARE(got.byTicket.value(hang).evidence.value(QStringLiteral("error")).toMap().value("message").toString(),
                 QStringLiteral("cancelled"));
        QCOMPARE(executor.gpusInRotation(), 1);  // a cancellation is nobody's fault
        const quint64 next = verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        QTRY_VERIFY_WITH_TIMEOUT(got.byTicket.contains(next), kWaitMs);
        QCOMPARE(toString(got.byTicket.value(next).status), QStringLiteral("INCORRECT_SHAPE"));
    }

    void aWorkerThatCannotStartLeavesTheRotation()
    {
        const QList<GpuDevice> gpus = fixtureGpus();
        HarnessLaunch broken = harnessLaunch({});
        broken.program = QStringLiteral("/nonexistent/python3");  // GPU 1's worker can never start
        MultiGpuExecutor executor({{gpus[0], MultiGpuExecutor::pinnedLaunch(harnessLaunch({}), gpus[0])},
                                   {gpus[1], MultiGpuExecutor::pinnedLaunch(broken, gpus[1])}},
                                  QStringLiteral("cpu"));
        QSignalSpy removed(&executor, &MultiGpuExecutor::gpuRemoved);
        Verifier verifier(executor);
        Verdicts got(verifier);
        QList<quint64> tickets;
        for (int i = 0; i < 3; ++i)
            tickets << verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        QTRY_COMPARE_WITH_TIMEOUT(got.byTicket.size(), 3, kWaitMs);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(removed.first().at(0).toInt(), 1);
        const QString message = removed.first().at(1).toString();
        QVERIFY2(message.startsWith(
                     QStringLiteral("GPU 1 (NVIDIA H100 80GB HBM3, %1) taken out of rotation after").arg(gpus[1].uuid)),
                 qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("could not be started")), qPrintable(message));
        QCOMPARE(executor.removals(), QStringList{message});
        QCOMPARE(executor.gpusInRotation(), 1);
        int retried = 0;
        for (quint64 t : tickets) {
            const Verdict& v = got.byTicket.value(t);
            QCOMPARE(toString(v.status), QStringLiteral("INCORRECT_SHAPE"));  // no request was lost to GPU 1
            QCOMPARE(gpuOf(v).value(QStringLiteral("uuid")).toString(), gpus[0].uuid);
            retried += gpuOf(v).value(QStringLiteral("retried")).toBool();
        }
        QCOMPARE(retried, 1);  // the request GPU 1 failed ran once more, on GPU 0
    }

    void withNoGpuLeftTheRestFailClearly()
    {
        HarnessLaunch broken = harnessLaunch({});
        broken.program = QStringLiteral("/nonexistent/python3");
        QList<MultiGpuExecutor::Worker> workers;
        for (const GpuDevice& g : fixtureGpus())
            workers.append({g, MultiGpuExecutor::pinnedLaunch(broken, g)});
        MultiGpuExecutor executor(workers, QStringLiteral("cpu"));
        Verifier verifier(executor);
        Verdicts got(verifier);
        for (int i = 0; i < 3; ++i)
            verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        QTRY_COMPARE_WITH_TIMEOUT(got.byTicket.size(), 3, 60000);
        QCOMPARE(executor.gpusInRotation(), 0);
        for (const Verdict& v : std::as_const(got.byTicket)) {
            QCOMPARE(toString(v.status), QStringLiteral("SYSTEM_ERROR"));
            const QString why = v.evidence.value(QStringLiteral("error")).toMap().value("message").toString();
            QVERIFY2(why.contains(QLatin1String("no GPU is left in rotation")) &&
                         why.contains(QLatin1String("taken out of rotation")),
                     qPrintable(why));
        }
    }

    void aSolutionsOwnCudaErrorKeepsAHealthyGpu()
    {
        // The kind of message a kernel's own out-of-bounds access produces: the GPU is checked, found healthy, kept.
        const VerifyJob faulty =
            job(QStringLiteral("import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                               "    def __init__(self, negative_slope):\n        super().__init__()\n\n"
                               "    def forward(self, x):\n"
                               "        raise RuntimeError('CUDA error: an illegal memory access was encountered')\n"));
        MultiGpuExecutor executor(fixtureGpus().mid(0, 1), harnessLaunch({}), QStringLiteral("cpu"));
        QSignalSpy checked(&executor, &MultiGpuExecutor::healthChecked);
        Verifier verifier(executor);
        Verdicts got(verifier);
        const quint64 t = verifier.verify(faulty);
        QTRY_COMPARE_WITH_TIMEOUT(got.byTicket.size(), 1, kWaitMs);
        QCOMPARE(toString(got.byTicket.value(t).status), QStringLiteral("RUNTIME_ERROR"));
        QCOMPARE(checked.size(), 1);
        QVERIFY2(checked.first().at(1).toBool(), qPrintable(checked.first().at(2).toString()));
        QCOMPARE(executor.gpusInRotation(), 1);
        const QVariantMap health = gpuOf(got.byTicket.value(t)).value(QStringLiteral("health_check")).toMap();
        QVERIFY(health.value(QStringLiteral("healthy")).toBool());
        // The GPU goes on serving.
        const quint64 next = verifier.verify(corpusJob(QStringLiteral("malformed/wrong_shape.py")));
        QTRY_VERIFY_WITH_TIMEOUT(got.byTicket.contains(next), kWaitMs);
        QCOMPARE(toString(got.byTicket.value(next).status), QStringLiteral("INCORRECT_SHAPE"));
    }
};

QTEST_GUILESS_MAIN(TestMultiGpuExecutor)
#include "test_multi_gpu_executor.moc"
