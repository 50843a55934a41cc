// Nsight Compute CSV and compute-sanitizer memcheck reports (recorded on an H200, plus inline edge cases) parsed
// into kernels, key figures and errors.
#include "toolchain/NcuReport.h"
#include "toolchain/SanitizerReport.h"

#include <QtTest>

using namespace km;

namespace {
QString recorded(const QString& path)
{
    QFile f(QStringLiteral(KMOSAIC_TEST_DATA) + "/" + path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing recorded output %s", qPrintable(path));
    return QString::fromUtf8(f.readAll());
}

const char* const kHeader = R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",)"
                            R"("Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",)"
                            R"("Metric Value")";

// One ncu row of launch `id` of kernel `name`.
QString row(int id, const QString& name, const QString& metric, const QString& unit, const QString& value)
{
    static const char* const pattern = R"x("%1","1","python3","host","%2","1","7","(256, 1, 1)","(32, 1, 1)",)x"
                                       R"x("0","9.0","Command line profiler metrics","%3","%4","%5")x";
    return QString::fromLatin1(pattern).arg(id).arg(name, metric, unit, value);
}

// A memcheck error block as compute-sanitizer prints it.
QString memcheckBlock(int thread)
{
    return QStringLiteral("========= Invalid __global__ read of size 4 bytes\n"
                          "=========     at k(const float *)+0x10\n"
                          "=========     by thread (%1,0,0) in block (0,0,0)\n"
                          "=========     Access to 0x10 is out of bounds\n"
                          "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
                          "=========         Host Frame: main [0x1] in a.out\n"
                          "========= \n")
        .arg(thread);
}
}  // namespace

class TestToolReports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ncuRecordedLaunches_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<int>("id");
        QTest::addColumn<QString>("grid");
        QTest::addColumn<QString>("durationText");
        QTest::addColumn<double>("durationNs");
        QTest::newRow("first launch") << 0 << 0 << "(32, 128, 1)"
                                      << "66,304" << 66304.0;
        QTest::newRow("small grid") << 1 << 1 << "(32, 1, 1)"
                                    << "4,224" << 4224.0;
        QTest::newRow("last launch") << 3 << 3 << "(32, 1, 1)"
                                     << "3,776" << 3776.0;
    }
    void ncuRecordedLaunches()
    {
        QFETCH(int, index);
        QFETCH(int, id);
        QFETCH(QString, grid);
        QFETCH(QString, durationText);
        QFETCH(double, durationNs);
        const Result<QList<NcuKernel>> k = parseNcuCsv(recorded("ncu/column-max-h200.csv"));
        QVERIFY2(k.ok(), qPrintable(k.ok() ? QString() : k.error().message));
        QCOMPARE(k->size(), 4);
        const NcuKernel& x = k->at(index);
        QCOMPARE(x.id, id);
        QCOMPARE(x.name, QString("column_max_kernel(const float *, float *, long, long, long, int)"));
        QCOMPARE(x.block, QString("(256, 1, 1)"));
        QCOMPARE(x.grid, grid);
        QCOMPARE(x.metrics.size(), 9);
        const NcuMetric d = x.metrics.value("gpu__time_duration.sum");
        QCOMPARE(d.unit, QString("ns"));
        QCOMPARE(d.text, durationText);
        QCOMPARE(d.value, durationNs);
    }

    void ncuRecordedKeyFigures_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("key");
        QTest::addColumn<double>("expected");
        QTest::newRow("duration ns -> us") << 0 << "duration_us" << 66.304;
        QTest::newRow("dram") << 0 << "dram_pct" << 85.09;
        QTest::newRow("sm") << 0 << "sm_pct" << 51.54;
        QTest::newRow("occupancy") << 0 << "achieved_occupancy_pct" << 93.73;
        QTest::newRow("registers") << 0 << "registers" << 28.0;
        QTest::newRow("static shared with separator") << 0 << "shared_static_bytes" << 1024.0;
        QTest::newRow("dynamic shared") << 0 << "shared_dynamic_bytes" << 0.0;
        QTest::newRow("local loads") << 0 << "local_loads" << 0.0;
        QTest::newRow("local stores") << 0 << "local_stores" << 0.0;
        QTest::newRow("small launch duration") << 1 << "duration_us" << 4.224;
        QTest::newRow("small launch occupancy") << 1 << "achieved_occupancy_pct" << 12.29;
    }
    void ncuRecordedKeyFigures()
    {
        QFETCH(int, index);
        QFETCH(QString, key);
        QFETCH(double, expected);
        const QVariantMap f = ncuKeyFigures(parseNcuCsv(recorded("ncu/column-max-h200.csv"))->at(index));
        QCOMPARE(f.size(), 10);  // name and nine figures: every metric was recorded
        QVERIFY2(f.contains(key), qPrintable(key));
        QCOMPARE(f.value(key).toDouble(), expected);
    }

    void ncuRecordedSummary()
    {
        const QVariantList s = summariseNcu(parseNcuCsv(recorded("ncu/column-max-h200.csv")).value());
        QCOMPARE(s.size(), 1);
        const QVariantMap k = s.first().toMap();
        QCOMPARE(k.value("launches").toInt(), 4);
        QCOMPARE(k.value("duration_us").toDouble(), (4.224 + 65.952) / 2);  // median of 3.776, 4.224, 65.952, 66.304
        QCOMPARE(k.value("max_duration_us").toDouble(), 66.304);
        QCOMPARE(k.value("dram_pct").toDouble(), 85.09);  // the longest launch's figures
        QCOMPARE(k.value("grid").toString(), QString("(32, 128, 1)"));
        QVERIFY(!k.contains("launches?"));
    }

    void ncuUnits_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QVariant>("expected");  // invalid: left out
        const QString t = "gpu__time_duration.sum";
        QTest::newRow("us") << t << "us"
                            << "1.5"
                            << "duration_us" << QVariant(1.5);
        QTest::newRow("usecond") << t << "usecond"
                                 << "2.25"
                                 << "duration_us" << QVariant(2.25);
        QTest::newRow("ms") << t << "ms"
                            << "2"
                            << "duration_us" << QVariant(2000.0);
        QTest::newRow("msecond") << t << "msecond"
                                 << "1,002.5"
                                 << "duration_us" << QVariant(1002500.0);
        QTest::newRow("nsecond") << t << "nsecond"
                                 << "1,500"
                                 << "duration_us" << QVariant(1.5);
        QTest::newRow("not a time unit") << t << "cycle"
                                         << "1500"
                                         << "duration_us" << QVariant();
        QTest::newRow("n/a") << t << "ns"
                             << "n/a"
                             << "duration_us" << QVariant();
        QTest::newRow("Kbyte") << "launch__shared_mem_per_block_static"
                               << "Kbyte/block"
                               << "49.15"
                               << "shared_static_bytes" << QVariant(qint64(49150));
        QTest::newRow("Minst") << "smsp__sass_inst_executed_op_local_st.sum"
                               << "Minst"
                               << "1.5"
                               << "local_stores" << QVariant(qint64(1500000));
        QTest::newRow("unknown prefix") << "smsp__sass_inst_executed_op_local_ld.sum"
                                        << "Xinst"
                                        << "3"
                                        << "local_loads" << QVariant();
        QTest::newRow("percent") << "sm__throughput.avg.pct_of_peak_sustained_elapsed"
                                 << "%"
                                 << "7.5"
                                 << "sm_pct" << QVariant(7.5);
    }
    void ncuUnits()
    {
        QFETCH(QString, metric);
        QFETCH(QString, unit);
        QFETCH(QString, value);
        QFETCH(QString, key);
        QFETCH(QVariant, expected);
        const Result<QList<NcuKernel>> k = parseNcuCsv(QString(kHeader) + "\n" + row(0, "k()", metric, unit, value));
        QVERIFY(k.ok());
        const QVariantMap f = ncuKeyFigures(k->first());
        QCOMPARE(f.value("name").toString(), QString("k()"));
        QCOMPARE(f.contains(key), expected.isValid());
        QCOMPARE(f.size(), expected.isValid() ? 2 : 1);  // every other figure is missing, so left out
        if (expected.isValid())
            QCOMPARE(f.value(key).toDouble(), expected.toDouble());
    }

    void ncuMalformed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("messagePart");
        const QString h = QString(kHeader) + "\n";
        const QString ok = row(0, "k()", "gpu__time_duration.sum", "ns", "1,000");
        QTest::newRow("empty") << ""
                               << "no header row";
        QTest::newRow("only ncu's own lines") << "==PROF== Connected to process 1\n==ERROR== no kernels were profiled\n"
                                              << "no header row (\"ID\",…,\"Metric Value\") in the Nsight Compute "
                                                 "output; ncu said: ==ERROR== no kernels were profiled";
        QTest::newRow("not csv") << "hello\nworld,1,2\n"
                                 << "no header row";
        QTest::newRow("too few fields") << QString("==PROF== x\n" + h + ok + "\n\"1\",\"2\"\n")
                                        << "line 4 of the Nsight Compute output: 2 fields where the header has 15";
        QTest::newRow("too many fields") << QString(h + ok + ",\"extra\"\n")
                                         << "line 2 of the Nsight Compute output: 16 fields";
        QTest::newRow("unclosed quote") << QString(h + ok + "\n" + ok.left(27) + "\n")
                                        << "line 3 of the Nsight Compute output: a quoted field is not closed";
        QTest::newRow("header without values") << "\"ID\",\"Kernel Name\",\"Metric Name\"\n"
                                               << "line 1 of the Nsight Compute output: the header lacks";
        QTest::newRow("launch id not a number") << QString(h + QString(ok).replace("\"0\",\"1\"", "\"x\",\"1\""))
                                                << "line 2 of the Nsight Compute output: the launch ID 'x'";
    }
    void ncuMalformed()
    {
        QFETCH(QString, text);
        QFETCH(QString, messagePart);
        const Result<QList<NcuKernel>> k = parseNcuCsv(text);
        QVERIFY(!k.ok());
        QCOMPARE(k.error().code, ErrorCode::InvalidInput);
        QVERIFY2(k.error().message.contains(messagePart), qPrintable(k.error().message));
    }

    void ncuQuotingLineEndingsAndManyKernels()
    {
        // A comma and a doubled quote inside a quoted field, CRLF, a repeated header and ncu lines between rows.
        const QString odd = "f<\"\"a,b\"\">(int)";
        const QString text = QString(kHeader) + "\r\n" + row(0, odd, "gpu__time_duration.sum", "us", "1") + "\r\n" +
                             "==WARNING== something\r\n" + kHeader + "\r\n" +
                             row(1, "g()", "gpu__time_duration.sum", "us", "5") + "\r\n" +
                             row(2, "g()", "gpu__time_duration.sum", "us", "1") + "\r\n" +
                             row(3, "g()", "launch__registers_per_thread", "register/thread", "40") + "\r\n" +
                             row(4, "g()", "gpu__time_duration.sum", "us", "2") + "\r\n\r\n";
        const Result<QList<NcuKernel>> k = parseNcuCsv(text);
        QVERIFY2(k.ok(), qPrintable(k.ok() ? QString() : k.error().message));
        QCOMPARE(k->size(), 5);
        QCOMPARE(k->first().name, QString("f<\"a,b\">(int)"));
        const QVariantList s = summariseNcu(k.value());
        QCOMPARE(s.size(), 2);
        QCOMPARE(s[0].toMap().value("name").toString(), QString("f<\"a,b\">(int)"));
        const QVariantMap g = s[1].toMap();
        QCOMPARE(g.value("launches").toInt(), 4);
        QCOMPARE(g.value("duration_us").toDouble(), 2.0);  // median of the three launches with a duration
        QCOMPARE(g.value("max_duration_us").toDouble(), 5.0);
        QVERIFY(!g.contains("registers"));  // the longest launch (ID 1) did not record it
        QCOMPARE(summariseNcu({}).size(), 0);
    }

    void memcheck_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("complete");
        QTest::addColumn<int>("errorCount");
        QTest::addColumn<int>("kept");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("thread");
        QTest::addColumn<QString>("block");
        QTest::addColumn<QString>("detail");
        QTest::newRow("recorded clean") << recorded("sanitizer/memcheck-clean-h200.txt") << true << 0 << 0 << ""
                                        << ""
                                        << ""
                                        << ""
                                        << "";
        QTest::newRow("recorded illegal address, cut short")
            << recorded("sanitizer/memcheck-illegal-address-h200.txt") << false << 3 << 3
            << "Invalid __global__ write of size 4 bytes"
            << "silu_far_kernel"
            << "(0,0,0)"
            << "(0,0,0)"
            << "Access to 0x8376ae800800 is out of bounds\nand is 4,397,908,100,609 bytes after the nearest "
               "allocation at 0x7f76b6c00000 of size 512 bytes";
        QTest::newRow("recorded illegal address, complete, print limit 20")
            << recorded("sanitizer/memcheck-illegal-address-complete-h200.txt") << true << 514 << 20
            << "Invalid __global__ write of size 4 bytes"
            << "silu_far_kernel"
            << "(0,0,0)"
            << "(0,0,0)"
            << "Access to 0x830e46800800 is out of bounds\nand is 4,397,908,100,609 bytes after the nearest "
               "allocation at 0x7f0e4ec00000 of size 512 bytes";
        QTest::newRow("API error")
            << "========= COMPUTE-SANITIZER\n"
               "========= Program hit cudaErrorIllegalAddress (error 700) due to \"an illegal memory access was "
               "encountered\" on CUDA API call to cudaDeviceSynchronize.\n"
               "=========     Saved host backtrace up to driver entry point at error\n"
               "=========         Host Frame: cudaDeviceSynchronize [0x4e0b5] in libcudart.so.12\n"
               "========= \n"
               "========= Target application returned an error\n"
               "========= ERROR SUMMARY: 1 error\n"
            << true << 1 << 1
            << "Program hit cudaErrorIllegalAddress (error 700) due to \"an illegal memory access was encountered\" "
               "on CUDA API call to cudaDeviceSynchronize"
            << ""
            << ""
            << ""
            << "";
        QTest::newRow("leak and its summary")
            << "========= COMPUTE-SANITIZER\n"
               "========= Leaked 1,024 bytes at 0x7f0000000000\n"
               "=========     Saved host backtrace up to driver entry point at cudaMalloc time\n"
               "=========         Host Frame: main [0x1] in a.out\n"
               "========= \n"
               "========= LEAK SUMMARY: 1024 bytes leaked in 1 allocations\n"
               "========= ERROR SUMMARY: 1 error\n"
            << true << 1 << 1 << "Leaked 1,024 bytes at 0x7f0000000000"
            << ""
            << ""
            << ""
            << "";
        QTest::newRow("print limit reached")
            << QString("========= COMPUTE-SANITIZER\n" + memcheckBlock(0) + memcheckBlock(1) +
                       "========= ERROR SUMMARY: 1,150 errors\n========= ERROR SUMMARY: 1148 errors were not printed\n")
            << true << 1150 << 2 << "Invalid __global__ read of size 4 bytes"
            << "k"
            << "(0,0,0)"
            << "(0,0,0)"
            << "Access to 0x10 is out of bounds";
        QString many = "========= COMPUTE-SANITIZER\n";
        for (int i = 0; i < 25; ++i)
            many += memcheckBlock(i);
        QTest::newRow("more errors than kept, no summary")
            << many << false << 25 << 20 << "Invalid __global__ read of size 4 bytes"
            << "k"
            << "(0,0,0)"
            << "(0,0,0)"
            << "Access to 0x10 is out of bounds";
        QTest::newRow("line info, template, program output between, CRLF")
            << "hello from the program\r\n"
               "========= Invalid __shared__ read of size 16 bytes\r\n"
               "=========     at void tile<float, (int)4>(const float *, float *, int)+0x1a0 in /tmp/x/cuda.cu:42\r\n"
               "=========     by thread (31,0,0) in block (2,1,0)\r\n"
               "printed by the kernel\r\n"
               "=========     Address 0x400 is out of bounds\r\n"
            << false << 1 << 1 << "Invalid __shared__ read of size 16 bytes"
            << "tile<float, (int)4>"
            << "(31,0,0)"
            << "(2,1,0)"
            << "at /tmp/x/cuda.cu:42\nAddress 0x400 is out of bounds";
        QTest::newRow("tool errors only")
            << "========= COMPUTE-SANITIZER\n========= Error: process didn't terminate successfully\n"
               "========= Target application returned an error\n========= ERROR SUMMARY: 0 errors\n"
            << true << 0 << 0 << ""
            << ""
            << ""
            << ""
            << "";
        QTest::newRow("empty") << "" << false << 0 << 0 << ""
                               << ""
                               << ""
                               << ""
                               << "";
        QTest::newRow("garbage") << QString::fromLatin1("\x01\x02 ===== not a report\n=====\n====\n\xff\xfe,,\"\n")
                                 << false << 0 << 0 << ""
                                 << ""
                                 << ""
                                 << ""
                                 << "";
    }
    void memcheck()
    {
        QFETCH(QString, text);
        QFETCH(bool, complete);
        QFETCH(int, errorCount);
        QFETCH(int, kept);
        QFETCH(QString, kind);
        QFETCH(QString, kernel);
        QFETCH(QString, thread);
        QFETCH(QString, block);
        QFETCH(QString, detail);
        const SanitizerReport r = parseMemcheck(text);
        QCOMPARE(r.complete, complete);
        QCOMPARE(r.errorCount, errorCount);
        QCOMPARE(r.errors.size(), kept);
        if (kept == 0)
            return;
        const SanitizerError& e = r.errors.first();
        QCOMPARE(e.kind, kind);
        QCOMPARE(e.kernel, kernel);
        QCOMPARE(e.thread, thread);
        QCOMPARE(e.block, block);
        QCOMPARE(e.detail, detail);
        for (const SanitizerError& x : r.errors)
            QVERIFY2(!x.detail.contains("Host Frame") && !x.detail.contains("backtrace"), qPrintable(x.detail));
    }

    void memcheckKeepsEachErrorsThread()
    {
        const SanitizerReport r = parseMemcheck(recorded("sanitizer/memcheck-illegal-address-h200.txt"));
        QCOMPARE(r.errors.size(), 3);
        QCOMPARE(r.errors[1].thread, QString("(1,0,0)"));
        QCOMPARE(r.errors[2].thread, QString("(2,0,0)"));
        QVERIFY(r.errors[2].detail.startsWith("Access to 0x8376ae800808 is out of bounds"));
    }
};

QTEST_GUILESS_MAIN(TestToolReports)
#include "test_tool_reports.moc"
