// The worker's environment is an allow list: API keys, desktop session sockets and cloud credentials stay out,
// what Python, torch, CUDA, the BLAS libraries and the harness read gets in, and HOME is the worker's own folder.
#include "verify/HarnessLaunch.h"
#include "verify/WorkerEnvironment.h"

#include <QtTest>

using namespace km;

namespace {
QProcessEnvironment planted()
{
    QProcessEnvironment e;
    const QList<QPair<const char*, const char*>> vars{{"OPENAI_API_KEY", "sk-planted-0123456789"},
                                                      {"MY_PROVIDER_KEY", "planted-custom-key-0123"},
                                                      {"AWS_SECRET_ACCESS_KEY", "planted-aws-secret"},
                                                      {"NVIDIA_API_KEY", "nvapi-planted-0123"},
                                                      {"CUDA_AUTH_TOKEN", "planted-token"},
                                                      {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"},
                                                      {"XDG_RUNTIME_DIR", "/run/user/1000"},
                                                      {"SSH_AUTH_SOCK", "/tmp/ssh-agent.sock"},
                                                      {"DISPLAY", ":0"},
                                                      {"HOME", "/home/someone"},
                                                      {"KMOSAIC_TEST_LLM_HTTP_KEY", "planted-kmosaic-named-key"},
                                                      {"PATH", "/usr/local/bin:/usr/bin"},
                                                      {"LANG", "C.UTF-8"},
                                                      {"LC_ALL", "C.UTF-8"},
                                                      {"TZ", "UTC"},
                                                      {"CUDA_VISIBLE_DEVICES", "GPU-1234"},
                                                      {"CUDA_HOME", "/usr/local/cuda"},
                                                      {"NVIDIA_VISIBLE_DEVICES", "all"},
                                                      {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"},
                                                      {"TORCH_CUDA_ARCH_LIST", "9.0"},
                                                      {"MAX_JOBS", "4"},
                                                      {"CXX", "g++"},
                                                      {"NVCC_PREPEND_FLAGS", "-ccbin=g++-12"},
                                                      {"OMP_NUM_THREADS", "2"},
                                                      {"OPENBLAS_CORETYPE", "Haswell"},
                                                      {"OPENBLAS_L2_SIZE", "1048576"},
                                                      {"KMOSAIC_GPU_LOCK_DIR", "/tmp/locks"},
                                                      {"KMOSAIC_OUTPUT_TRANSPORT", "file"},
                                                      {"KMOSAIC_NVCC_PARALLEL", "0"},
                                                      {"KMOSAIC_HARNESS_NO_PRELOAD", "1"}};
    for (const auto& [name, value] : vars)
        e.insert(QString::fromLatin1(name), QString::fromLatin1(value));
    return e;
}
}  // namespace

class TestWorkerEnvironment : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void secretsAndSessionStayOut_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n :
             {"OPENAI_API_KEY", "MY_PROVIDER_KEY", "AWS_SECRET_ACCESS_KEY", "NVIDIA_API_KEY", "CUDA_AUTH_TOKEN",
              "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "DISPLAY", "KMOSAIC_TEST_LLM_HTTP_KEY"})
            QTest::newRow(n) << QString::fromLatin1(n);
    }
    void secretsAndSessionStayOut()
    {
        QFETCH(QString, name);
        const QProcessEnvironment env = workerEnvironment(planted(), QStringLiteral("/scratch/w1"));
        QVERIFY2(!env.contains(name), qPrintable(name + QStringLiteral(" reached the worker")));
        for (const QString& k : env.keys())
            QVERIFY2(!env.value(k).contains(QLatin1String("planted")), qPrintable(k));
    }

    void whatTheHarnessNeedsGetsIn_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n :
             {"PATH", "LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "NVIDIA_VISIBLE_DEVICES",
              "LD_LIBRARY_PATH", "TORCH_CUDA_ARCH_LIST", "MAX_JOBS", "CXX", "NVCC_PREPEND_FLAGS", "OMP_NUM_THREADS",
              "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "KMOSAIC_GPU_LOCK_DIR", "KMOSAIC_OUTPUT_TRANSPORT",
              "KMOSAIC_NVCC_PARALLEL", "KMOSAIC_HARNESS_NO_PRELOAD"})
            QTest::newRow(n) << QString::fromLatin1(n);
    }
    void whatTheHarnessNeedsGetsIn()
    {
        QFETCH(QString, name);
        const QProcessEnvironment from = planted();
        const QProcessEnvironment env = workerEnvironment(from, QStringLiteral("/scratch/w1"));
        QCOMPARE(env.value(name), from.value(name));
    }

    void homeIsTheGivenFolderAndPythonIsQuiet()
    {
        const QProcessEnvironment env = workerEnvironment(planted(), QStringLiteral("/scratch/w1"));
        QCOMPARE(env.value(QStringLiteral("HOME")), QStringLiteral("/scratch/w1"));
        QCOMPARE(env.value(QStringLiteral("PYTHONDONTWRITEBYTECODE")), QStringLiteral("1"));
        QCOMPARE(env.value(QStringLiteral("PYTHONUNBUFFERED")), QStringLiteral("1"));
    }

    // The launch applies it to this process's environment, with the harness first on PYTHONPATH.
    void launchUsesTheAllowList()
    {
        qputenv("OPENAI_API_KEY", "sk-planted-launch-0123456789");
        qputenv("OPENBLAS_CORETYPE", "Haswell");
        const HarnessLaunch l = harnessLaunch(QStringLiteral("/scratch/root"), false);
        qunsetenv("OPENAI_API_KEY");
        QVERIFY(!l.environment.contains(QStringLiteral("OPENAI_API_KEY")));
        QCOMPARE(l.environment.value(QStringLiteral("OPENBLAS_CORETYPE")), QStringLiteral("Haswell"));
        QCOMPARE(l.environment.value(QStringLiteral("HOME")), QStringLiteral("/scratch/root"));
        QVERIFY(l.environment.value(QStringLiteral("PYTHONPATH")).startsWith(harnessDir()));
    }
};

QTEST_GUILESS_MAIN(TestWorkerEnvironment)
#include "test_worker_environment.moc"
