// The harness's verdict object turned into a Verdict: status precedence, compiler messages located in the solution,
// timing, and the ncu and memcheck evidence parsed from their recorded output.
#include "curate/TaskFolder.h"
#include "verify/InlineSourceMap.h"
#include "verify/VerdictAssembly.h"

#include <QtTest>

using namespace km;

namespace {
QString recorded(const QString& path)
{
    const Result<QString> text = readUtf8File(QStringLiteral(KMOSAIC_TEST_DATA) + "/" + path);
    if (!text.ok())
        qFatal("missing recorded file %s", qPrintable(path));
    return text.value();
}

QVariantMap passed()
{
    return {{"status", "PASSED"}, {"configs_run", QStringList{"small", "odd"}}};
}

QVariantMap tool(const QString& name, const QString& output)
{
    return {{"tool", name}, {"ok", true}, {"seconds", 12.5}, {"output", output}};
}

AssemblyInput input(const QVariantMap& harness, const QList<Finding>& findings = {})
{
    AssemblyInput in;
    in.harness = harness;
    in.staticFindings = findings;
    in.executor = "local";
    in.network = "netns";
    return in;
}
}  // namespace

class TestVerdictAssembly : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void statusPrecedence_data()
    {
        QTest::addColumn<QString>("harnessStatus");
        QTest::addColumn<QString>("staticSeverity");  // none, error, warning
        QTest::addColumn<QString>("memcheck");        // recorded report given to the verdict, or none
        QTest::addColumn<QString>("expected");
        const QString dirty = "sanitizer/memcheck-illegal-address-h200.txt";
        const QString clean = "sanitizer/memcheck-clean-h200.txt";
        QTest::newRow("passed") << "PASSED"
                                << "none"
                                << "none"
                                << "PASSED";
        QTest::newRow("static warning keeps a pass") << "PASSED"
                                                     << "warning"
                                                     << "none"
                                                     << "PASSED";
        QTest::newRow("static error on a pass") << "PASSED"
                                                << "error"
                                                << "none"
                                                << "REWARD_HACK";
        QTest::newRow("static error on wrong outputs") << "INCORRECT_NUMERICAL"
                                                       << "error"
                                                       << "none"
                                                       << "REWARD_HACK";
        QTest::newRow("static error on a compile error") << "COMPILE_ERROR"
                                                         << "error"
                                                         << "none"
                                                         << "REWARD_HACK";
        QTest::newRow("static error on a timeout") << "TIMEOUT"
                                                   << "error"
                                                   << "none"
                                                   << "REWARD_HACK";
        QTest::newRow("static error on a runtime error") << "RUNTIME_ERROR"
                                                         << "error"
                                                         << "none"
                                                         << "REWARD_HACK";
        QTest::newRow("invalid reference wins") << "INVALID_REFERENCE"
                                                << "error"
                                                << "none"
                                                << "INVALID_REFERENCE";
        QTest::newRow("system error wins") << "SYSTEM_ERROR"
                                           << "error"
                                           << "none"
                                           << "SYSTEM_ERROR";
        QTest::newRow("unknown status") << "BOGUS"
                                        << "none"
                                        << "none"
                                        << "SYSTEM_ERROR";
        QTest::newRow("memcheck errors fail a pass") << "PASSED"
                                                     << "none" << dirty << "RUNTIME_ERROR";
        QTest::newRow("clean memcheck keeps a pass") << "PASSED"
                                                     << "none" << clean << "PASSED";
        QTest::newRow("static error over memcheck") << "PASSED"
                                                    << "error" << dirty << "REWARD_HACK";
        QTest::newRow("memcheck does not hide wrong outputs") << "INCORRECT_NUMERICAL"
                                                              << "none" << dirty << "INCORRECT_NUMERICAL";
    }
    void statusPrecedence()
    {
        QFETCH(QString, harnessStatus);
        QFETCH(QString, staticSeverity);
        QFETCH(QString, memcheck);
        QFETCH(QString, expected);
        QVariantMap h{{"status", harnessStatus}};
        if (memcheck != "none")
            h.insert("memcheck", tool("memcheck", recorded(memcheck)));
        QList<Finding> findings;
        if (staticSeverity != "none")
            findings.append({"static.threads",
                             staticSeverity == "error" ? Finding::Severity::Error : Finding::Severity::Warning, 3,
                             "threading imported"});
        const Verdict v = assembleVerdict(input(h, findings));
        QCOMPARE(toString(v.status), expected);
        QCOMPARE(v.findings.size(), findings.size() + (memcheck.contains("illegal") ? 1 : 0));
        if (staticSeverity == "error")
            QCOMPARE(v.findings.first().check, QString("static.threads"));  // errors listed first
        QCOMPARE(v.executor, QString("local"));
    }

    // A forward that reaches no compiled code says how right outputs were computed: it makes a pass a reward hack
    // and leaves every other status as the harness found it.
    void noCompiledCallDecidesOnlyAPass_data()
    {
        QTest::addColumn<QString>("harnessStatus");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a pass") << "PASSED"
                                << "REWARD_HACK";
        QTest::newRow("wrong outputs") << "INCORRECT_NUMERICAL"
                                       << "INCORRECT_NUMERICAL";
        QTest::newRow("no ModelNew") << "RUNTIME_ERROR"
                                     << "RUNTIME_ERROR";
        QTest::newRow("a syntax error") << "COMPILE_ERROR"
                                        << "COMPILE_ERROR";
    }
    void noCompiledCallDecidesOnlyAPass()
    {
        QFETCH(QString, harnessStatus);
        QFETCH(QString, expected);
        const QList<Finding> findings{
            {"static.no_compiled_call", Finding::Severity::Error, 9, "ModelNew.forward never calls ..."}};
        const Verdict v = assembleVerdict(input({{"status", harnessStatus}}, findings));
        QCOMPARE(toString(v.status), expected);
        QCOMPARE(v.findings.size(), 1);  // kept as evidence either way
        // With another static error, the precedence is as before.
        const Verdict both = assembleVerdict(
            input({{"status", harnessStatus}},
                  findings + QList<Finding>{{"static.threads", Finding::Severity::Error, 3, "threading imported"}}));
        QCOMPARE(toString(both.status), QString("REWARD_HACK"));
    }

    // A NaN/Inf output: its numbers come as "inf" and "nan" (protocol.py), and the summary still names the trial
    // (on the H200 the stale-memory trick's summary read "evidence.trials[0].max_abs is not a number").
    void nonFiniteErrorsStillSummariseTheFailingTrial()
    {
        const QString message = "output 0 has 4 NaN/Inf value(s) where the reference is finite";
        const QVariantMap trial{{"config", "default"}, {"seed", 7},        {"ok", false},
                                {"max_abs", "inf"},    {"max_rel", "nan"}, {"message", message}};
        const QVariantMap h{
            {"status", "INCORRECT_NUMERICAL"},
            {"trials", QVariantList{trial}},
            {"failure",
             QVariantMap{
                 {"config", "default"}, {"seed", 7}, {"max_abs", "inf"}, {"max_rel", "nan"}, {"message", message}}}};
        const Verdict v = assembleVerdict(input(h));
        QCOMPARE(toString(v.status), QString("INCORRECT_NUMERICAL"));
        QCOMPARE(v.summary, QString("configuration 'default', seed 7: ") + message);
    }

    void emptyHarnessObjectIsASystemError()
    {
        const Verdict v = [] {
            AssemblyInput in = input({}, {{"static.threads", Finding::Severity::Error, 3, "threading imported"}});
            in.harnessError = "the harness worker exited (signal 9) before answering";
            return assembleVerdict(in);
        }();
        QCOMPARE(toString(v.status), QString("SYSTEM_ERROR"));
        QCOMPARE(v.summary, QString("the harness worker exited (signal 9) before answering"));
        const QVariantMap err = v.evidence.value("error").toMap();
        QCOMPARE(err.value("kind").toString(), QString("executor"));
        QCOMPARE(err.value("message").toString(), v.summary);
        QCOMPARE(v.isolation, QString("worker: netns"));
        QCOMPARE(v.findings.size(), 1);  // kept as evidence; the status stays SYSTEM_ERROR
    }

    void compileErrorMapsToTheSolutionLine_data()
    {
        QTest::addColumn<QString>("generatedName");  // key of the generated sources; empty: none came back
        QTest::addColumn<bool>("mapped");
        QTest::newRow("cuda.cu in the extension folder") << "relu/cuda.cu" << true;
        QTest::newRow("cuda.cu") << "cuda.cu" << true;
        QTest::newRow("only main.cpp came back") << "relu/main.cpp" << false;
        QTest::newRow("no generated sources") << "" << false;
    }
    void compileErrorMapsToTheSolutionLine()
    {
        QFETCH(QString, generatedName);
        QFETCH(bool, mapped);
        const QString py = recorded("solutions/compile_error.py");
        const QStringList pyLines = py.split('\n');
        int errorLine = 0;
        for (int i = 0; i < pyLines.size(); ++i)
            if (pyLines[i].contains("ERROR-LINE"))
                errorLine = i + 1;
        QVERIFY(errorLine > 0);
        // cuda.cu as load_inline writes it, the file the recorded nvcc log is about.
        const QString generated = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" +
                                  tripleQuotedStrings(py).first().value;
        QVariantMap build{{"ok", false}, {"seconds", 3.5}, {"log", recorded("nvcc/compile-error-py.txt")}};
        if (!generatedName.isEmpty())
            build.insert("generated", QVariantMap{{generatedName, generated}});
        AssemblyInput in = input({{"status", "COMPILE_ERROR"},
                                  {"build", build},
                                  {"error", QVariantMap{{"kind", "build"}, {"message", "Error building extension"}}}});
        in.solutionSource = py;
        const Verdict v = assembleVerdict(in);
        QCOMPARE(toString(v.status), QString("COMPILE_ERROR"));
        QCOMPARE(v.diagnostics.size(), 1);
        const SolutionDiagnostic& d = v.diagnostics.first();
        QCOMPARE(d.severity, QString("error"));
        QCOMPARE(d.generatedFile, QString("cuda.cu"));
        QCOMPARE(d.generatedLine, 12);
        QVERIFY2(d.message.contains("\"zero_value\" is undefined"), qPrintable(d.message));
        QCOMPARE(d.line, mapped ? errorLine : 0);
        QCOMPARE(v.summary, QString((mapped ? QString("line %1: ").arg(errorLine) : QString()) + d.message));
        QVERIFY(!v.evidence.value("build").toMap().contains("generated"));  // too large to keep
        QVERIFY(v.evidence.value("build").toMap().contains("log"));
    }

    void syntaxErrorIsADiagnosticAtItsLine()
    {
        const QVariantMap err{{"kind", "syntax"}, {"line", 6}, {"message", "'(' was never closed"}};
        AssemblyInput in = input({{"status", "COMPILE_ERROR"}, {"error", err}});
        in.solutionSource = recorded("static/syntax_error.py");
        const Verdict v = assembleVerdict(in);
        QCOMPARE(toString(v.status), QString("COMPILE_ERROR"));
        QCOMPARE(v.diagnostics.size(), 1);
        QCOMPARE(v.diagnostics.first(), (SolutionDiagnostic{"error", 6, QString(), 0, "'(' was never closed"}));
        QCOMPARE(v.summary, QString("line 6: '(' was never closed"));
    }

    void timing_data()
    {
        QTest::addColumn<QVariantMap>("timing");
        QTest::addColumn<QVariant>("runtimeMs");  // invalid: none
        QTest::addColumn<QVariant>("refRuntimeMs");
        QTest::addColumn<QVariant>("speedup");
        QTest::addColumn<QString>("summary");
        const QVariantMap full{{"device", "cuda"},
                               {"config", "default"},
                               {"solution_ms", QVariantMap{{"median", 0.14}}},
                               {"reference_ms", QVariantMap{{"median", 0.28}}},
                               {"speedup", 2.0},
                               {"speedup_ci95", QVariantList{1.9, 2.1}}};
        QTest::newRow("full") << full << QVariant(0.14) << QVariant(0.28) << QVariant(2.0)
                              << "2.00x over eager [1.90, 2.10] (cuda, default)";
        QVariantMap noCi = full;
        noCi.remove("speedup_ci95");
        QTest::newRow("no interval") << noCi << QVariant(0.14) << QVariant(0.28) << QVariant(2.0)
                                     << "2.00x over eager (cuda, default)";
        QTest::newRow("no timing") << QVariantMap() << QVariant() << QVariant() << QVariant()
                                   << "correct on small, odd";
        QVariantMap noSpeedup{{"solution_ms", QVariantMap{{"median", 3.5}}}};
        QTest::newRow("solution only") << noSpeedup << QVariant(3.5) << QVariant() << QVariant()
                                       << "correct on small, odd";
    }
    void timing()
    {
        QFETCH(QVariantMap, timing);
        QFETCH(QVariant, runtimeMs);
        QFETCH(QVariant, refRuntimeMs);
        QFETCH(QVariant, speedup);
        QFETCH(QString, summary);
        QVariantMap h = passed();
        if (!timing.isEmpty())
            h.insert("timing", timing);
        const Verdict v = assembleVerdict(input(h));
        const auto same = [](const std::optional<double>& got, const QVariant& want) {
            return want.isValid() ? got && qFuzzyCompare(*got, want.toDouble()) : !got;
        };
        QVERIFY(same(v.runtimeMs, runtimeMs));
        QVERIFY(same(v.refRuntimeMs, refRuntimeMs));
        QVERIFY(same(v.speedup, speedup));
        QCOMPARE(v.summary, summary);
    }

    void ncuEvidence_data()
    {
        QTest::addColumn<QString>("output");
        QTest::addColumn<int>("kernels");  // -1: parsing fails
        QTest::addColumn<int>("keptOutput");
        QTest::newRow("recorded") << recorded("ncu/column-max-h200.csv") << 1 << 0;
        QTest::newRow("not csv") << "==ERROR== the profiler failed\n" << -1 << 30;
        QTest::newRow("long garbage cut") << QString(30000, 'x') << -1 << 20000;
        QTest::newRow("empty output") << "" << 0 << 0;
    }
    void ncuEvidence()
    {
        QFETCH(QString, output);
        QFETCH(int, kernels);
        QFETCH(int, keptOutput);
        QVariantMap h = passed();
        h.insert("ncu", tool("ncu", output));
        const Verdict v = assembleVerdict(input(h));
        QCOMPARE(toString(v.status), QString("PASSED"));
        const QVariantMap ncu = v.evidence.value("ncu").toMap();
        QCOMPARE(ncu.value("tool").toString(), QString("ncu"));
        QCOMPARE(ncu.value("seconds").toDouble(), 12.5);
        QCOMPARE(ncu.value("output").toString().size(), keptOutput);
        QCOMPARE(ncu.contains("output"), keptOutput > 0);
        QCOMPARE(ncu.contains("parse_error"), kernels < 0);
        QCOMPARE(ncu.value("kernels").toList().size(), std::max(kernels, 0));
        if (kernels > 0) {
            const QVariantMap k = ncu.value("kernels").toList().first().toMap();
            QCOMPARE(k.value("launches").toInt(), 4);
            QCOMPARE(k.value("registers").toInt(), 28);
            QCOMPARE(k.value("duration_us").toDouble(), (4.224 + 65.952) / 2);
        }
    }

    void memcheckEvidenceAndFinding()
    {
        QVariantMap h = passed();
        QVariantMap mc = tool("memcheck", recorded("sanitizer/memcheck-illegal-address-h200.txt"));
        mc.insert("ok", false);
        mc.insert("error", "memcheck ended: timeout");
        h.insert("memcheck", mc);
        const Verdict v = assembleVerdict(input(h));
        QCOMPARE(toString(v.status), QString("RUNTIME_ERROR"));
        QCOMPARE(v.findings.size(), 1);
        const Finding& f = v.findings.first();
        QCOMPARE(f.check, QString("sanitizer.memcheck"));
        QCOMPARE(toString(f.severity), QString("warning"));
        QCOMPARE(f.message, QString("compute-sanitizer memcheck: 3 error(s) (report cut short); first: Invalid "
                                    "__global__ write of size 4 bytes in silu_far_kernel"));
        QCOMPARE(v.summary, f.message);
        const QVariantMap e = v.evidence.value("memcheck").toMap();
        QVERIFY(!e.contains("output"));
        QCOMPARE(e.value("error").toString(), QString("memcheck ended: timeout"));
        QCOMPARE(e.value("complete").toBool(), false);
        QCOMPARE(e.value("error_count").toInt(), 3);
        const QVariantList errors = e.value("errors").toList();
        QCOMPARE(errors.size(), 3);
        QCOMPARE(errors[2].toMap().value("thread").toString(), QString("(2,0,0)"));
        QCOMPARE(errors[0].toMap().value("kernel").toString(), QString("silu_far_kernel"));
    }

    void memcheckKeepsFiveErrorsAndTheSummaryCount()
    {
        QString report = "========= COMPUTE-SANITIZER\n";
        for (int i = 0; i < 7; ++i)
            report += QString("========= Invalid __global__ read of size 4 bytes\n"
                              "=========     at k(float *)+0x10\n"
                              "=========     by thread (%1,0,0) in block (0,0,0)\n"
                              "========= \n")
                          .arg(i);
        report += "========= ERROR SUMMARY: 7 errors\n";
        QVariantMap h = passed();
        h.insert("memcheck", tool("memcheck", report));
        const Verdict v = assembleVerdict(input(h));
        const QVariantMap e = v.evidence.value("memcheck").toMap();
        QCOMPARE(e.value("complete").toBool(), true);
        QCOMPARE(e.value("error_count").toInt(), 7);
        QCOMPARE(e.value("errors").toList().size(), 5);
        QCOMPARE(
            v.summary,
            QString("compute-sanitizer memcheck: 7 error(s); first: Invalid __global__ read of size 4 bytes in k"));
    }

    void memcheckNotFoundLeavesTheVerdictAlone()
    {
        QVariantMap h = passed();
        h.insert("memcheck",
                 QVariantMap{{"tool", "memcheck"}, {"ok", false}, {"error", "compute-sanitizer not found"}});
        const Verdict v = assembleVerdict(input(h));
        QCOMPARE(toString(v.status), QString("PASSED"));
        QVERIFY(v.findings.isEmpty());
        QCOMPARE(v.evidence.value("memcheck").toMap(), h.value("memcheck").toMap());
    }
};

QTEST_GUILESS_MAIN(TestVerdictAssembly)
#include "test_verdict_assembly.moc"
