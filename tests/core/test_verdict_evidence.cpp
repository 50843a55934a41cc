// The typed verdict evidence, decoded from recorded verdicts: the H200 verdicts of the shipped trajectories
// (timing, trials, build, durations, profile), the ncu and memcheck evidence assembled from output recorded on the
// H200, the GPU that nvidia-smi listed there; wrongly typed parts refused with the key named.
#include "curate/TaskFolder.h"
#include "model/VerdictEvidence.h"
#include "util/Json.h"
#include "verify/GpuDiscovery.h"
#include "verify/VerdictAssembly.h"

#include <QFile>
#include <QtTest>
#include <cmath>

using namespace km;

namespace {
const QString kBundle = QStringLiteral(KMOSAIC_SOURCE_DIR "/resources/trajectories/h200-manual-demonstrations.json");

QString recorded(const QString& path)
{
    const Result<QString> text = readUtf8File(QStringLiteral(KMOSAIC_TEST_DATA) + "/" + path);
    if (!text.ok())
        qFatal("missing recorded file %s", qPrintable(path));
    return text.value();
}

// The evidence of every verdict of the shipped bundle, named "task step N".
QList<std::pair<QString, QVariantMap>> shippedEvidence()
{
    QFile f(kBundle);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(kBundle));
    QList<std::pair<QString, QVariantMap>> out;
    const QVariantMap bundle = json::parse(f.readAll(), nullptr).value_or(QVariant()).toMap();
    for (const QVariant& r : bundle.value("runs").toList()) {
        const QVariantMap run = r.toMap();
        for (const QVariant& s : run.value("steps").toList()) {
            const QVariantMap step = s.toMap();
            if (step.value("verdict").typeId() == QMetaType::QVariantMap)  // null: a reply without code
                out.append(
                    {QStringLiteral("%1 step %2").arg(run.value("task_id").toString(), step.value("idx").toString()),
                     step.value("verdict").toMap().value("evidence").toMap()});
        }
    }
    return out;
}

QVariantMap shipped(const QString& name)
{
    for (const auto& [n, evidence] : shippedEvidence())
        if (n == name)
            return evidence;
    qFatal("no verdict %s in the shipped bundle", qPrintable(name));
}

VerdictEvidence decoded(const QVariantMap& evidence)
{
    const Result<VerdictEvidence> e = VerdictEvidence::decode(evidence);
    if (!e)
        qFatal("evidence does not decode: %s", qPrintable(e.error().message));
    return e.value();
}

std::optional<double> raw(const QVariantMap& m, const QString& key)
{
    return m.contains(key) ? std::optional<double>(m.value(key).toDouble()) : std::nullopt;
}

QVariantMap harnessWithTool(const QString& kind, const QString& output)
{
    return {{"status", "PASSED"},
            {"configs_run", QStringList{"default"}},
            {kind, QVariantMap{{"tool", kind}, {"ok", true}, {"seconds", 21.3}, {"output", output}}}};
}
}  // namespace

class TestVerdictEvidence : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every recorded verdict decodes, and each figure the later views show is the one the harness wrote.
    void shippedVerdicts_data()
    {
        QTest::addColumn<QVariantMap>("evidence");
        for (const auto& [name, evidence] : shippedEvidence())
            QTest::newRow(qPrintable(name)) << evidence;
        QCOMPARE(shippedEvidence().size(), 13);
    }
    void shippedVerdicts()
    {
        QFETCH(QVariantMap, evidence);
        const VerdictEvidence e = decoded(evidence);
        QCOMPARE(e.status, evidence.value("status").toString());
        QCOMPARE(e.configsRun, evidence.value("configs_run").toStringList());
        const QVariantList trials = evidence.value("trials").toList();
        QCOMPARE(e.trials.size(), trials.size());
        for (qsizetype i = 0; i < trials.size(); ++i) {
            const QVariantMap t = trials[i].toMap();
            QCOMPARE(e.trials[i].config, t.value("config").toString());
            QCOMPARE(e.trials[i].seed, std::optional<qint64>(t.value("seed").toLongLong()));
            QCOMPARE(e.trials[i].maxAbs, raw(t, "max_abs"));
            QCOMPARE(e.trials[i].maxRel, raw(t, "max_rel"));
            QCOMPARE(e.trials[i].ok, std::optional<bool>(t.value("ok").toBool()));
        }
        const QVariantMap timing = evidence.value("timing").toMap();
        QCOMPARE(e.timing.has_value(), !timing.isEmpty());
        if (e.timing) {
            for (const auto& [side, key] :
                 {std::pair{&e.timing->solutionMs, "solution_ms"}, std::pair{&e.timing->referenceMs, "reference_ms"}}) {
                const QVariantMap m = timing.value(key).toMap();
                QVERIFY(side->has_value());
                QCOMPARE((*side)->median, raw(m, "median"));
                QCOMPARE((*side)->q1, raw(m, "q1"));
                QCOMPARE((*side)->q3, raw(m, "q3"));
                QCOMPARE((*side)->n, std::optional<qint64>(m.value("n").toLongLong()));
            }
            QCOMPARE(e.timing->speedup, raw(timing, "speedup"));
            QCOMPARE(e.timing->speedupCi95.size(), 2);
            QCOMPARE(qsizetype(e.timing->runs.value_or(-1)), e.timing->solutionSamplesMs.size());
            QCOMPARE(e.timing->referenceSamplesMs.size(), e.timing->solutionSamplesMs.size());
        }
        const QVariantMap durations = evidence.value("durations").toMap();
        QVERIFY(e.durations);
        QCOMPARE(e.durations->measuringS, raw(durations, "measuring_s"));
        QCOMPARE(e.durations->buildS, raw(durations, "build_s"));
        QCOMPARE(e.durations->referenceS, raw(durations, "reference_s"));
        QCOMPARE(e.durations->judgeS, raw(durations, "judge_s"));
        QVERIFY(e.build);
        QCOMPARE(e.build->seconds, raw(evidence.value("build").toMap(), "seconds"));
        QVERIFY(!e.gpu);  // recorded before the multi-GPU executor wrote evidence.gpu
        QVERIFY(!e.ncu);
    }

    void timing_data()
    {
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<double>("median");
        QTest::addColumn<double>("iqr");
        QTest::addColumn<double>("ciLow");
        QTest::addColumn<double>("ciHigh");
        QTest::addColumn<double>("ownShare");
        QTest::newRow("gelu-tanh, faster kernel")
            << "gelu-tanh step 2" << 0.1435520052909851 << 0.14564800634980202 - 0.14215999469161034
            << 9.756536234632092 << 9.842785237220383 << 1.0;
        QTest::newRow("softmax-rows, slower than eager")
            << "softmax-rows step 0" << 0.3160960078239441 << 0.3179599866271019 - 0.3139120116829872
            << 0.591851186115751 << 0.6164290894060077 << 1.0;
    }
    void timing()
    {
        QFETCH(QString, verdict);
        QFETCH(double, median);
        QFETCH(double, iqr);
        QFETCH(double, ciLow);
        QFETCH(double, ciHigh);
        QFETCH(double, ownShare);
        const VerdictEvidence e = decoded(shipped(verdict));
        QVERIFY(e.timing && e.timing->solutionMs);
        QCOMPARE(e.timing->device, QString("cuda"));
        QCOMPARE(e.timing->config, QString("default"));
        QCOMPARE(e.timing->solutionMs->median, median);
        QCOMPARE(*e.timing->solutionMs->q3 - *e.timing->solutionMs->q1, iqr);
        QCOMPARE(e.timing->speedupCi95, (QList<double>{ciLow, ciHigh}));
        QVERIFY(e.timing->launchFloorMs.value_or(0) > 0);
        QVERIFY(e.profile);
        QCOMPARE(e.profile->ownKernelShare, std::optional<double>(ownShare));
        QVERIFY(!e.profile->kernels.isEmpty());
    }

    // A NaN or Inf output: the harness sends the numbers as "nan", "inf", "-inf" (JSON has none); seen on the H200
    // with the stale-memory trick, whose trial reported max_abs "inf".
    void nonFiniteNumbersAsTheHarnessSendsThem()
    {
        const QVariantMap trial{{"config", "default"},
                                {"seed", 7},
                                {"ok", false},
                                {"max_abs", "inf"},
                                {"max_rel", "nan"},
                                {"mismatches", 3},
                                {"status", "INCORRECT_NUMERICAL"}};
        const QVariantMap failure{{"config", "default"}, {"seed", 7}, {"max_abs", "-inf"}, {"max_rel", 0.5}};
        const auto e = VerdictEvidence::decode({{"trials", QVariantList{trial}}, {"failure", failure}});
        QVERIFY2(e, e ? "" : qPrintable(e.error().message));
        QCOMPARE(e->trials.size(), 1);
        QVERIFY(e->trials.first().maxAbs && std::isinf(*e->trials.first().maxAbs) && *e->trials.first().maxAbs > 0);
        QVERIFY(e->trials.first().maxRel && std::isnan(*e->trials.first().maxRel));
        QVERIFY(e->failure && e->failure->maxAbs && *e->failure->maxAbs < 0 && std::isinf(*e->failure->maxAbs));
        // Any other text is still a wrong type, named.
        QVariantMap wrong = trial;
        wrong.insert("max_abs", "large");
        const auto bad = VerdictEvidence::decode({{"trials", QVariantList{wrong}}});
        QVERIFY(!bad);
        QCOMPARE(bad.error().message, QStringLiteral("evidence.trials[0].max_abs is not a number"));
    }

    // A CPU verdict lists the checks it could not run, each with why; a damaged entry is named.
    void checksNotRunOnTheCpu()
    {
        const QVariantList notRun{QVariantMap{{"name", "runtime.library_only"}, {"reason", "no profiler"}},
                                  QVariantMap{{"name", "runtime.side_stream"}, {"reason", "no streams"}}};
        const auto e = VerdictEvidence::decode({{"device", "cpu"}, {"checks_not_run", notRun}});
        QVERIFY2(e, e ? "" : qPrintable(e.error().message));
        QCOMPARE(e->checksNotRun.size(), 2);
        QCOMPARE(e->checksNotRun[0].name, QStringLiteral("runtime.library_only"));
        QCOMPARE(e->checksNotRun[1].reason, QStringLiteral("no streams"));
        const auto bad = VerdictEvidence::decode({{"checks_not_run", QVariantList{QVariantMap{{"name", 3}}}}});
        QVERIFY(!bad);
        QVERIFY2(bad.error().message.contains("evidence.checks_not_run[0]"), qPrintable(bad.error().message));
    }

    // The trial that failed, per configuration and seed, with its max abs and rel error.
    void failingTrial_data()
    {
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<qint64>("seed");
        QTest::addColumn<double>("maxAbs");
        QTest::addColumn<double>("maxRel");
        QTest::addColumn<qint64>("mismatches");
        QTest::newRow("rmsnorm") << "rmsnorm step 0" << qint64(1984520163) << 6.048087120056152 << 0.7763932347297668
                                 << qint64(167753083);
        QTest::newRow("column-max") << "column-max step 0" << qint64(745241378) << 1.6321954727172852
                                    << 0.3025018870830536 << qint64(1015);
    }
    void failingTrial()
    {
        QFETCH(QString, verdict);
        QFETCH(qint64, seed);
        QFETCH(double, maxAbs);
        QFETCH(double, maxRel);
        QFETCH(qint64, mismatches);
        const VerdictEvidence e = decoded(shipped(verdict));
        const auto bad =
            std::find_if(e.trials.cbegin(), e.trials.cend(), [](const TrialEvidence& t) { return !*t.ok; });
        QVERIFY(bad != e.trials.cend());
        QCOMPARE(bad->config, QString("default"));
        QCOMPARE(bad->seed, std::optional<qint64>(seed));
        QCOMPARE(bad->maxAbs, std::optional<double>(maxAbs));
        QCOMPARE(bad->maxRel, std::optional<double>(maxRel));
        QCOMPARE(bad->mismatches, std::optional<qint64>(mismatches));
        QCOMPARE(bad->status, QString("INCORRECT_NUMERICAL"));
        QVERIFY(bad->message.contains("values outside atol"));
        QVERIFY(e.failure);
        QCOMPARE(e.failure->seed, bad->seed);
        QCOMPARE(e.failure->maxAbs, bad->maxAbs);
        QCOMPARE(e.failure->message, bad->message);
        QVERIFY(e.tolerance);
        QCOMPARE(e.tolerance->atol, std::optional<double>(0.0001));
    }

    void build_data()
    {
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<double>("buildS");  // durations.build_s
        QTest::addColumn<QString>("call");   // the extension built
        QTest::addColumn<double>("callS");   // -1: found in the build cache, nothing timed
        QTest::addColumn<QString>("light");  // the light-build path taken
        QTest::newRow("build failed") << "gelu-tanh step 0" << false << 23.9059 << "km_demo_gelu_tanh"
                                      << 23.847342189000003 << "fallback";
        QTest::newRow("built in the build stage")
            << "gelu-tanh step 2" << true << 16.7989 << "km_demo_gelu_tanh" << 16.739517081999992 << "used";
        QTest::newRow("cached") << "rmsnorm step 1" << true << 0.0278 << "km_demo_rmsnorm" << -1.0 << "";
    }
    void build()
    {
        QFETCH(QString, verdict);
        QFETCH(bool, ok);
        QFETCH(double, buildS);
        QFETCH(QString, call);
        QFETCH(double, callS);
        QFETCH(QString, light);
        const VerdictEvidence e = decoded(shipped(verdict));
        QVERIFY(e.build && e.durations);
        QCOMPARE(e.build->ok, std::optional<bool>(ok));
        QCOMPARE(e.durations->buildS, std::optional<double>(buildS));
        const QList<BuildCall> calls = ok ? e.build->stageCalls : e.build->calls;
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls[0].name, call);
        QCOMPARE(calls[0].seconds, callS < 0 ? std::nullopt : std::optional<double>(callS));
        QCOMPARE(calls[0].cached, std::optional<bool>(callS < 0));
        QCOMPARE(calls[0].light, light);
        QCOMPARE(e.build->stageSeconds.has_value(), ok);
        QCOMPARE(e.error.has_value(), !ok);
        QCOMPARE(e.timing.has_value(), ok);
        if (!ok) {
            QCOMPARE(e.error->kind, QString("build"));
            QVERIFY(e.build->log.contains("identifier \"GELU\" is undefined"));
        }
    }

    // Where each child's wall time went, as the H200 run recorded it.
    void phaseDurations()
    {
        const VerdictEvidence e = decoded(shipped("gelu-tanh step 2"));
        QVERIFY(e.durations);
        QCOMPARE(e.durations->phases.keys(), (QStringList{"judge", "reference", "solution"}));
        QCOMPARE(e.durations->phases.value("judge"), (PhaseSteps{{"start", 0.0019}, {"compare", 3.2979}}));
        const PhaseSteps solution = e.durations->phases.value("solution");
        QCOMPARE(solution.size(), 11);
        QCOMPARE(solution[1], (std::pair<QString, double>{"build", 0.0052}));
        QCOMPARE(solution.last(), (std::pair<QString, double>{"profile", 0.0216}));
        QCOMPARE(e.durations->solutionS, std::optional<double>(6.5195));
    }

    void ncuFromRecordedOutput()
    {
        const Verdict v = assembleVerdict(
            {harnessWithTool("ncu", recorded("ncu/column-max-h200.csv")), {}, {}, {}, "local", "netns"});
        const VerdictEvidence e = decoded(v.evidence);
        QVERIFY(e.ncu);
        QCOMPARE(e.ncu->run.tool, QString("ncu"));
        QCOMPARE(e.ncu->run.ok, std::optional<bool>(true));
        QCOMPARE(e.ncu->run.seconds, std::optional<double>(21.3));
        QVERIFY(e.ncu->output.isEmpty());  // parsed: the raw CSV is not kept
        QCOMPARE(e.ncu->kernels.size(), 1);
        const NcuKernelFigures& k = e.ncu->kernels[0];
        QCOMPARE(k.name, QString("column_max_kernel(const float *, float *, long, long, long, int)"));
        QCOMPARE(k.launches, std::optional<qint64>(4));
        QCOMPARE(k.durationUs, std::optional<double>((4.224 + 65.952) / 2));
        QCOMPARE(k.maxDurationUs, std::optional<double>(66.304));
        QCOMPARE(k.dramPct, std::optional<double>(85.09));
        QCOMPARE(k.block, QString("(256, 1, 1)"));
        QCOMPARE(k.grid, QString("(32, 128, 1)"));
        QVERIFY(k.registers && k.smPct && k.achievedOccupancyPct && k.sharedStaticBytes && k.localLoads);
    }

    void ncuOutputThatDoesNotParse()
    {
        const Verdict v = assembleVerdict(
            {harnessWithTool("ncu", "==PROF== no kernels were profiled\n"), {}, {}, {}, "local", "netns"});
        const VerdictEvidence e = decoded(v.evidence);
        QVERIFY(e.ncu);
        QVERIFY(e.ncu->kernels.isEmpty());
        QVERIFY(!e.ncu->parseError.isEmpty());
        QVERIFY(e.ncu->output.contains("no kernels were profiled"));
    }

    void sanitizerFromRecordedOutput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("complete");
        QTest::addColumn<qint64>("errorCount");
        QTest::addColumn<int>("kept");  // the first five at most
        QTest::addColumn<QString>("kernel");
        QTest::newRow("clean") << "sanitizer/memcheck-clean-h200.txt" << true << qint64(0) << 0 << "";
        QTest::newRow("illegal address, cut short")
            << "sanitizer/memcheck-illegal-address-h200.txt" << false << qint64(3) << 3 << "silu_far_kernel";
        QTest::newRow("illegal address, complete")
            << "sanitizer/memcheck-illegal-address-complete-h200.txt" << true << qint64(514) << 5 << "silu_far_kernel";
    }
    void sanitizerFromRecordedOutput()
    {
        QFETCH(QString, file);
        QFETCH(bool, complete);
        QFETCH(qint64, errorCount);
        QFETCH(int, kept);
        QFETCH(QString, kernel);
        const Verdict v = assembleVerdict({harnessWithTool("memcheck", recorded(file)), {}, {}, {}, "local", "netns"});
        const VerdictEvidence e = decoded(v.evidence);
        QVERIFY(e.memcheck);
        QCOMPARE(e.memcheck->run.tool, QString("memcheck"));
        QCOMPARE(e.memcheck->complete, std::optional<bool>(complete));
        QCOMPARE(e.memcheck->errorCount, std::optional<qint64>(errorCount));
        QCOMPARE(e.memcheck->errors.size(), kept);
        if (kept > 0) {
            QCOMPARE(e.memcheck->errors[0].kind, QString("Invalid __global__ write of size 4 bytes"));
            QCOMPARE(e.memcheck->errors[0].kernel, kernel);
            QCOMPARE(e.memcheck->errors[0].thread, QString("(0,0,0)"));
            QVERIFY(e.memcheck->errors[0].detail.contains("is out of bounds"));
        }
    }

    void gpuAsTheMultiGpuExecutorRecordsIt()
    {
        const Result<QList<GpuDevice>> gpus = parseGpuQuery(recorded("nvidia-smi/query-gpu-1xh200.csv"));
        QVERIFY(gpus && gpus->size() == 1);
        QVariantMap gpu = gpus->first().toEvidence();
        gpu.insert("health_check", QVariantMap{{"healthy", true}, {"message", "ok"}});
        gpu.insert("retried", true);
        const VerdictEvidence e = decoded({{"gpu", gpu}});
        QVERIFY(e.gpu);
        QCOMPARE(e.gpu->index, std::optional<qint64>(0));
        QCOMPARE(e.gpu->name, QString("NVIDIA H200"));
        QCOMPARE(e.gpu->uuid, QString("GPU-697203e5-a0c6-54b0-af06-f91f34d0e202"));
        QCOMPARE(e.gpu->pciBusId, QString("00000000:00:06.0"));
        QVERIFY(e.gpu->healthCheck && e.gpu->healthCheck->healthy);
        QCOMPARE(e.gpu->healthCheck->message, QString("ok"));
        QVERIFY(e.gpu->retried);
    }

    // Missing, null and empty parts are absent; keys the decoder does not know are no error.
    void absentParts()
    {
        QCOMPARE(decoded({}), VerdictEvidence{});
        const VerdictEvidence e = decoded(json::parse(R"({"timing":null,"gpu":{},"failure":null,"isolation":{"x":1},
            "build":{"ok":true,"seconds":null},"trials":[{"config":"small","max_abs":null}]})",
                                                      nullptr)
                                              ->toMap());
        QVERIFY(!e.timing);
        QVERIFY(!e.gpu);
        QVERIFY(!e.failure);
        QVERIFY(e.build && !e.build->seconds);
        QCOMPARE(e.trials.size(), 1);
        QVERIFY(!e.trials[0].maxAbs);
        QVERIFY(!e.trials[0].seed);
    }

    // A harness that broke its own format: the verdict's one line says where, as its evidence is stored unchanged.
    void damagedEvidenceIsNamedInTheSummary()
    {
        QVariantMap harness{{"status", "INCORRECT_NUMERICAL"},
                            {"failure", QVariantMap{{"config", "small"}, {"seed", "x"}}}};
        const Verdict v = assembleVerdict({harness, {}, {}, {}, "local", "netns"});
        QVERIFY(v.status == VerdictStatus::IncorrectNumerical);
        QCOMPARE(v.summary, QString("evidence.failure.seed is not an integer"));
        QCOMPARE(v.evidence.value("failure").toMap().value("seed").toString(), QString("x"));
        harness.insert("failure", QVariantMap{{"config", "small"}, {"seed", 17}, {"message", "2 of 8 differ"}});
        QCOMPARE(assembleVerdict({harness, {}, {}, {}, "local", "netns"}).summary,
                 QString("configuration 'small', seed 17: 2 of 8 differ"));
    }

    void wrongTypesNameTheKey_data()
    {
        QTest::addColumn<QByteArray>("evidence");
        QTest::addColumn<QString>("message");
        QTest::newRow("seed") << QByteArray(R"({"trials":[{"seed":1},{"seed":"17"}]})")
                              << "evidence.trials[1].seed is not an integer";
        QTest::newRow("median") << QByteArray(R"({"timing":{"solution_ms":{"median":"fast"}}})")
                                << "evidence.timing.solution_ms.median is not a number";
        QTest::newRow("ci") << QByteArray(R"({"timing":{"speedup_ci95":[1.0,"x"]}})")
                            << "evidence.timing.speedup_ci95[1] is not a number";
        QTest::newRow("gpu") << QByteArray(R"({"gpu":[0]})") << "evidence.gpu is not an object";
        QTest::newRow("trials") << QByteArray(R"({"trials":{"config":"small"}})") << "evidence.trials is not a list";
        QTest::newRow("ncu kernel") << QByteArray(R"({"ncu":{"kernels":[{"name":"k"},7]}})")
                                    << "evidence.ncu.kernels[1] is not an object";
        QTest::newRow("cached") << QByteArray(R"({"build":{"stage":{"calls":[{"cached":"yes"}]}}})")
                                << "evidence.build.stage.calls[0].cached is not true or false";
        QTest::newRow("phase") << QByteArray(R"({"durations":{"phases":{"judge":[["load"]]}}})")
                               << "evidence.durations.phases.judge[0] is not [step, seconds]";
        QTest::newRow("memcheck count") << QByteArray(R"({"memcheck":{"error_count":2.5}})")
                                        << "evidence.memcheck.error_count is not an integer";
        QTest::newRow("configs run") << QByteArray(R"({"configs_run":["small",3]})")
                                     << "evidence.configs_run[1] is not a string";
    }
    void wrongTypesNameTheKey()
    {
        QFETCH(QByteArray, evidence);
        QFETCH(QString, message);
        const auto parsed = json::parse(evidence, nullptr);
        QVERIFY(parsed);
        const Result<VerdictEvidence> e = VerdictEvidence::decode(parsed->toMap());
        QVERIFY(!e);
        QCOMPARE(e.error().code, ErrorCode::InvalidInput);
        QCOMPARE(e.error().message, message);
    }
};

QTEST_GUILESS_MAIN(TestVerdictEvidence)
#include "test_verdict_evidence.moc"
