// GPU discovery: the parser of nvidia-smi's query output on the fixtures in tests/data/nvidia-smi (which are
// recorded and which are written by hand: its README), the CUDA runtime's CUDA_VISIBLE_DEVICES rules, --gpus
// selection, and the runner against a program that is missing, fails, or prints a fixture.

#include "verify/GpuDiscovery.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;

namespace {
QString fixture(const QString& name)
{
    QFile f(QStringLiteral(KMOSAIC_TEST_DATA "/nvidia-smi/") + name);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QList<GpuDevice> eight()
{
    return parseGpuQuery(fixture(QStringLiteral("query-gpu-8xh100-synthetic.csv"))).value();
}

QString indices(const QList<GpuDevice>& gpus)
{
    QStringList out;
    for (const GpuDevice& g : gpus)
        out << QString::number(g.index);
    return out.join(QLatin1Char(','));
}
}  // namespace

class TestGpuDiscovery : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesTheRecordedH200()
    {
        const auto gpus = parseGpuQuery(fixture(QStringLiteral("query-gpu-1xh200.csv")));
        QVERIFY2(gpus.ok(), gpus.ok() ? "" : qPrintable(gpus.error().message));
        QCOMPARE(gpus->size(), 1);
        const GpuDevice& g = gpus->first();
        QCOMPARE(g.index, 0);
        QCOMPARE(g.uuid, QStringLiteral("GPU-697203e5-a0c6-54b0-af06-f91f34d0e202"));
        QCOMPARE(g.name, QStringLiteral("NVIDIA H200"));
        QCOMPARE(g.pciBusId, QStringLiteral("00000000:00:06.0"));
        QCOMPARE(g.memoryMiB, 143771);
        QCOMPARE(g.computeCap, QStringLiteral("9.0"));
        QCOMPARE(g.label(), QStringLiteral("GPU 0 (NVIDIA H200, GPU-697203e5-a0c6-54b0-af06-f91f34d0e202)"));
        QCOMPARE(g.toEvidence().value(QStringLiteral("pci_bus_id")).toString(), g.pciBusId);
    }

    void parsesEightH100()
    {
        const QList<GpuDevice> gpus = eight();
        QCOMPARE(gpus.size(), 8);
        QCOMPARE(indices(gpus), QStringLiteral("0,1,2,3,4,5,6,7"));
        QCOMPARE(gpus[7].pciBusId, QStringLiteral("00000000:DB:00.0"));
        QCOMPARE(gpus[3].name, QStringLiteral("NVIDIA H100 80GB HBM3"));
    }

    void malformedLinesAreNamed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("too few fields") << "0, GPU-a, NVIDIA H200, 00000000:19:00.0, 143771\n"
                                        << "line 1: expected 6";
        QTest::newRow("index") << "\n\nx, GPU-a, NVIDIA H200, 0:19:00.0, 143771, 9.0\n"
                               << "line 3: index 'x'";
        QTest::newRow("uuid") << "0, 5b3c, NVIDIA H200, 0:19:00.0, 143771, 9.0\n"
                              << "uuid '5b3c'";
        QTest::newRow("units") << "0, GPU-a, NVIDIA H200, 0:19:00.0, 143771 MiB, 9.0\n"
                               << "nounits";
        QTest::newRow("twice") << "0, GPU-a, H200, 0:19:00.0, 1, 9.0\n0, GPU-b, H200, 0:1a:00.0, 1, 9.0\n"
                               << "line 2: GPU 0 (GPU-b) is listed twice";
        QTest::newRow("an error message") << "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                                             "driver.\n"
                                          << "line 1: expected 6";
    }
    void malformedLinesAreNamed()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const auto r = parseGpuQuery(text);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(expected), qPrintable(r.error().message));
        QCOMPARE(r.error().code, ErrorCode::InvalidInput);
    }

    void noGpuIsAnEmptyList()
    {
        const auto r = parseGpuQuery(QStringLiteral("\n"));
        QVERIFY(r.ok());
        QVERIFY(r->isEmpty());
    }

    void cudaVisibleDevices_data()
    {
        QTest::addColumn<QString>("value");  // "<unset>": not set at all
        QTest::addColumn<QString>("visible");
        QTest::addColumn<QString>("note");
        QTest::newRow("unset") << "<unset>"
                               << "0,1,2,3,4,5,6,7"
                               << "";
        QTest::newRow("empty: no GPU") << ""
                                       << ""
                                       << "";
        QTest::newRow("order kept") << "3,1"
                                    << "3,1"
                                    << "";
        QTest::newRow("spaces") << " 2 , 5 "
                                << "2,5"
                                << "";
        QTest::newRow("full uuid") << "GPU-d23f0824-128b-2f33-0c5c-7fd0a6a3a450"
                                   << "1"
                                   << "";
        QTest::newRow("unique prefix") << "GPU-a17,0"
                                       << "7,0"
                                       << "";
        QTest::newRow("ambiguous prefix ends the list") << "2,GPU-6,3"
                                                        << "2"
                                                        << "entry 2 'GPU-6' is a prefix of 2";
        QTest::newRow("unknown uuid") << "GPU-ffff,1"
                                      << ""
                                      << "matches no GPU";
        QTest::newRow("out of range ends the list") << "0,8,1"
                                                    << "0"
                                                    << "entry 2 '8' is not the index";
        QTest::newRow("-1 hides all") << "-1"
                                      << ""
                                      << "neither an index";
        QTest::newRow("duplicate ends the list") << "4,5,4,6"
                                                 << "4,5"
                                                 << "names GPU 4 a second time";
        QTest::newRow("empty entry ends the list") << "1,,2"
                                                   << "1"
                                                   << "entry 2 ''";
        QTest::newRow("junk") << "0,abc"
                              << "0"
                              << "entry 2 'abc'";
    }
    void cudaVisibleDevices()
    {
        QFETCH(QString, value);
        QFETCH(QString, visible);
        QFETCH(QString, note);
        QString why;
        const auto env = value == QLatin1String("<unset>") ? std::nullopt : std::optional<QString>(value);
        const auto r = applyCudaVisibleDevices(eight(), env, &why);
        QVERIFY(r.ok());
        QCOMPARE(indices(r.value()), visible);
        if (note.isEmpty())
            QVERIFY2(why.isEmpty(), qPrintable(why));
        else
            QVERIFY2(why.contains(note), qPrintable(why));
    }

    void migIsUnsupported()
    {
        const auto r = applyCudaVisibleDevices(eight(), QStringLiteral("MIG-9b1f0a2c-7d7e-5c4b-a1e0-8a7f6d5c4b3a"));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        QVERIFY2(r.error().message.contains(QLatin1String("MIG instances are not supported")),
                 qPrintable(r.error().message));
    }

    void selectGpus()
    {
        const auto visible = applyCudaVisibleDevices(eight(), QStringLiteral("5,2,7")).value();
        QCOMPARE(indices(km::selectGpus(visible, QStringLiteral("all")).value()), QStringLiteral("5,2,7"));
        QCOMPARE(indices(km::selectGpus(visible, QStringLiteral("7")).value()), QStringLiteral("7"));
        QCOMPARE(indices(km::selectGpus(visible, QStringLiteral("2,5")).value()), QStringLiteral("2,5"));
        auto r = km::selectGpus(visible, QStringLiteral("0"));  // GPU 0 exists but is not visible
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(QLatin1String("visible: 5,2,7")), qPrintable(r.error().message));
        QVERIFY(!km::selectGpus(visible, QStringLiteral("2,2")).ok());
        QVERIFY(!km::selectGpus(visible, QStringLiteral("two")).ok());
        r = km::selectGpus({}, QStringLiteral("all"));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::NotFound);
    }

    void runnerReportsAMissingOrFailingNvidiaSmi()
    {
        qputenv("KMOSAIC_NVIDIA_SMI", "/nonexistent/nvidia-smi");
        auto r = queryGpus(5000);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(QLatin1String("could not be started")), qPrintable(r.error().message));

        QTemporaryDir dir;
        const QString failing = dir.filePath(QStringLiteral("nvidia-smi"));
        writeScript(failing, "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\" "
                             ">&2\nexit 9\n");
        qputenv("KMOSAIC_NVIDIA_SMI", failing.toLocal8Bit());
        r = queryGpus(5000);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(QLatin1String("exit code 9")) &&
                     r.error().message.contains(QLatin1String("couldn't communicate")),
                 qPrintable(r.error().message));
        qunsetenv("KMOSAIC_NVIDIA_SMI");
    }

    void runnerAppliesCudaVisibleDevices()
    {
        QTemporaryDir dir;
        const QString smi = dir.filePath(QStringLiteral("nvidia-smi"));
        // Checks that it is asked the documented query, then prints the eight-GPU fixture.
        writeScript(smi, QStringLiteral("[ \"$1\" = \"%1\" ] || exit 3\ncat '%2'\n")
                             .arg(gpuQueryArguments().first(),
                                  QStringLiteral(KMOSAIC_TEST_DATA "/nvidia-smi/query-gpu-8xh100-synthetic.csv"))
                             .toUtf8());
        qputenv("KMOSAIC_NVIDIA_SMI", smi.toLocal8Bit());
        qputenv("CUDA_VISIBLE_DEVICES", "6,GPU-d23f");
        const auto r = visibleGpus();
        QVERIFY2(r.ok(), r.ok() ? "" : qPrintable(r.error().message));
        QCOMPARE(indices(r.value()), QStringLiteral("6,1"));
        qunsetenv("CUDA_VISIBLE_DEVICES");
        QCOMPARE(visibleGpus()->size(), 8);
        qunsetenv("KMOSAIC_NVIDIA_SMI");
    }

private:
    static void writeScript(const QString& path, const QByteArray& body)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\n" + body);
        f.close();
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    }
};

QTEST_GUILESS_MAIN(TestGpuDiscovery)
#include "test_gpu_discovery.moc"
