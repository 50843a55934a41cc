// Trajectory bundles, pure: values -> bytes -> the same values; every malformed input -> an error naming where;
// no key of a provider leaves the store; the content id ignores store ids and follows the content.
#include "../common/StepCompare.h"
#include "agent/TrajectoryBundle.h"
#include "model/VerdictCodec.h"
#include "util/Json.h"

#include <QtTest>
#include <functional>

using namespace km;

Q_DECLARE_METATYPE(km::ErrorCode)

namespace {
QDateTime at(const char* iso)
{
    return parseIsoUtc(QString::fromLatin1(iso)).value();
}

BundledStep step(int idx, Stage stage, const QString& code)
{
    BundledStep b;
    TrajectoryStep& s = b.step;
    s.id = 100 + idx;  // store ids: never written
    s.idx = idx;
    s.stage = stage;
    s.templateName = idx == 0 ? QStringLiteral("no_code") : toString(stage);
    s.prompt = QStringLiteral("prompt %1 \"quoted\"\n\tline two").arg(idx);
    s.reply = QStringLiteral("reply %1: ünïcödé, 漢字 and 🚀").arg(idx);
    s.code = code;
    s.messages = {QVariantMap{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), s.prompt}}};
    s.guidance = {QStringLiteral("memory-coalescing")};
    s.usage = {{QStringLiteral("attempts"), qint64(2)}, {QStringLiteral("finish_reason"), QStringLiteral("stop")}};
    s.tokensIn = 1000 + idx;
    s.tokensOut = 200;
    s.latencyMs = 1234;
    s.verifyMs = idx * 1000;
    s.createdAt = at("2025-03-01T12:00:00.125Z").addSecs(idx * 60);
    return b;
}

Verdict verdict(VerdictStatus status, std::optional<double> speedup)
{
    Verdict v;
    v.status = status;
    v.createdAt = at("2025-03-01T12:05:00.500Z");
    v.harnessVersion = QStringLiteral("harness-7");
    v.executor = QStringLiteral("local");
    v.isolation = QStringLiteral("no network");
    v.summary = QStringLiteral("summary of %1").arg(toString(status));
    v.environment = {{QStringLiteral("gpu"), QStringLiteral("H100")}, {QStringLiteral("torch"), QStringLiteral("2.4")}};
    v.evidence = {{QStringLiteral("trials"), QVariantList{qint64(1), 2.5}}};
    v.findings = {Finding{QStringLiteral("static.threads"), Finding::Severity::Warning, 3, QStringLiteral("hm")}};
    v.diagnostics = {
        SolutionDiagnostic{QStringLiteral("error"), 6, QStringLiteral("main.cpp"), 9, QStringLiteral("x")}};
    v.speedup = speedup;
    if (speedup) {
        v.runtimeMs = 0.5;
        v.refRuntimeMs = 0.5 * *speedup;
    }
    return v;
}

TrajectoryBundle sample()
{
    BundledRun r;
    r.run.id = 7;
    r.run.owner = QStringLiteral("123@host");
    r.run.taskId = QStringLiteral("relu");
    r.run.kind = QStringLiteral("manual");
    r.run.model = QStringLiteral("person");
    r.run.promptVersion = QStringLiteral("implement@1 repair@1");
    r.run.settings = {
        {QStringLiteral("provider"), QVariantMap{{QStringLiteral("api_key_env"), QStringLiteral("KEY")},
                                                 {QStringLiteral("base_url"), QStringLiteral("http://x")}}},
        {QStringLiteral("sampling"), QVariantMap{{QStringLiteral("temperature"), 0.25}}}};
    r.run.budgets = {{QStringLiteral("run"), QVariantMap{{QStringLiteral("turns"), qint64(8)}}}};
    r.run.totals = {{QStringLiteral("turns"), qint64(3)}, {QStringLiteral("best_speedup"), 2.5}};
    r.run.state = RunState::Completed;
    r.run.stage = Stage::Optimise;
    r.run.startedAt = at("2025-03-01T11:59:00.001Z");
    r.run.endedAt = at("2025-03-01T12:10:00.999Z");
    r.taskTitle = QStringLiteral("ReLU activation");
    r.steps = {step(0, Stage::Implement, {}), step(1, Stage::Implement, QStringLiteral("bad\n")),
               step(2, Stage::Repair, QStringLiteral("good\n"))};
    r.steps[0].step.error = QStringLiteral("no code block");
    r.steps[1].verdict = verdict(VerdictStatus::CompileError, std::nullopt);
    r.steps[1].step.status = QStringLiteral("COMPILE_ERROR");
    r.steps[2].verdict = verdict(VerdictStatus::Passed, 2.5);
    r.steps[2].step.status = QStringLiteral("PASSED");
    r.steps[2].step.speedup = 2.5;
    r.bestStepIdx = 2;

    BundledRun running;
    running.run.taskId = QStringLiteral("softmax-rows");
    running.run.state = RunState::Running;
    running.run.startedAt = at("2025-03-02T08:00:00.000Z");
    running.steps = {step(0, Stage::Implement, QStringLiteral("x\n"))};

    TrajectoryBundle b;
    b.label = QStringLiteral("team-authored demonstration");
    b.exportedAt = at("2025-03-03T09:00:00.000Z");
    b.exportedBy = QStringLiteral("kmosaic 0.9");
    b.runs = {r, running};
    return b;
}

QVariantMap variantOf(const QByteArray& bytes)
{
    return json::parse(bytes, nullptr).value_or(QVariant()).toMap();
}

// The sample bundle as JSON with one edit applied; `runs`, a run and a step are reached through these helpers.
using Edit = std::function<void(QVariantMap&)>;
QByteArray edited(const Edit& edit)
{
    QVariantMap m = variantOf(writeTrajectoryBundle(sample()));
    edit(m);
    return json::write(m);
}
Edit onRun(int i, const std::function<void(QVariantMap&)>& edit)
{
    return [=](QVariantMap& m) {
        QVariantList runs = m.value(QStringLiteral("runs")).toList();
        QVariantMap run = runs[i].toMap();
        edit(run);
        runs[i] = run;
        m.insert(QStringLiteral("runs"), runs);
    };
}
Edit onStep(int i, int j, const std::function<void(QVariantMap&)>& edit)
{
    return onRun(i, [=](QVariantMap& run) {
        QVariantList steps = run.value(QStringLiteral("steps")).toList();
        QVariantMap s = steps[j].toMap();
        edit(s);
        steps[j] = s;
        run.insert(QStringLiteral("steps"), steps);
    });
}
Edit set(const QString& key, const QVariant& value)
{
    return [=](QVariantMap& m) {
        value.isValid() ? void(m.insert(key, value)) : void(m.remove(key));
    };
}
}  // namespace

class TestTrajectoryBundle : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void valuesSurviveTheRoundTrip()
    {
        const TrajectoryBundle in = sample();
        const QByteArray bytes = writeTrajectoryBundle(in);
        auto out = readTrajectoryBundle(bytes);
        QVERIFY2(out.ok(), out.ok() ? "" : qPrintable(out.error().message));
        QCOMPARE(out->label, in.label);
        QCOMPARE(out->exportedAt, in.exportedAt);
        QCOMPARE(out->exportedBy, in.exportedBy);
        QCOMPARE(out->runs.size(), 2);
        const BundledRun& a = in.runs[0];
        const BundledRun& b = out->runs[0];
        QCOMPARE(b.run.taskId, a.run.taskId);
        QCOMPARE(b.run.kind, a.run.kind);
        QCOMPARE(b.run.model, a.run.model);
        QCOMPARE(b.run.promptVersion, a.run.promptVersion);
        QCOMPARE(json::write(b.run.settings), json::write(a.run.settings));
        QCOMPARE(json::write(b.run.budgets), json::write(a.run.budgets));
        QCOMPARE(json::write(b.run.totals), json::write(a.run.totals));
        QCOMPARE(toString(b.run.state), toString(a.run.state));
        QCOMPARE(toString(b.run.stage), toString(a.run.stage));
        QCOMPARE(b.run.startedAt, a.run.startedAt);
        QCOMPARE(b.run.endedAt, a.run.endedAt);
        QCOMPARE(b.run.id, qint64(0));  // store ids and the owner stay behind
        QVERIFY(b.run.owner.isEmpty());
        QVERIFY(b.bestStepIdx == 2);
        QCOMPARE(b.taskTitle, a.taskTitle);
        QCOMPARE(b.origin, trajectoryOrigin(a));
        QCOMPARE(b.steps.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const TrajectoryStep& x = a.steps[i].step;
            const TrajectoryStep& y = b.steps[i].step;
            QCOMPARE(y.id, qint64(0));
            km::test::compareStepContent(y, x);  // non-ASCII and a character outside the BMP in the reply
            if (QTest::currentTestFailed())
                return;
            QCOMPARE(b.steps[i].verdict.has_value(), a.steps[i].verdict.has_value());
            if (a.steps[i].verdict)
                QCOMPARE(json::write(verdictToVariant(*b.steps[i].verdict)),
                         json::write(verdictToVariant(*a.steps[i].verdict)));
        }
        QCOMPARE(toString(out->runs[1].run.state), toString(RunState::Running));
        QVERIFY(!out->runs[1].bestStepIdx);
        QCOMPARE(writeTrajectoryBundle(out.value()), bytes);  // nothing lost, nothing added
    }

    void theContentIdFollowsTheContentOnly()
    {
        BundledRun r = sample().runs[0];
        const QString origin = trajectoryOrigin(r);
        QCOMPARE(origin.size(), 64);
        r.run.id = 99;
        r.run.settings.clear();
        r.steps[2].verdict.reset();
        r.steps[1].step.id = 5;
        QCOMPARE(trajectoryOrigin(r), origin);
        r.steps[1].step.reply += QLatin1Char('!');
        QVERIFY(trajectoryOrigin(r) != origin);
        // A bundle without origins (written by hand) gets the computed ones; a given origin is kept.
        const QByteArray bare = edited(onRun(0, set(QStringLiteral("origin"), {})));
        QCOMPARE(readTrajectoryBundle(bare)->runs[0].origin, trajectoryOrigin(sample().runs[0]));
        const QString given(64, QLatin1Char('a'));
        QCOMPARE(readTrajectoryBundle(edited(onRun(0, set(QStringLiteral("origin"), given))))->runs[0].origin, given);
    }

    void noKeyLeavesTheStore()
    {
        TrajectoryBundle b = sample();
        QVariantMap provider = b.runs[0].run.settings.value(QStringLiteral("provider")).toMap();
        provider.insert(QStringLiteral("api_key"), QStringLiteral("sk-SECRET-1"));
        provider.insert(QStringLiteral("api_key_keychain"), QStringLiteral("team-key"));
        provider.insert(QStringLiteral("headers"), QVariantList{QVariantMap{{QStringLiteral("Authorization"),
                                                                             QStringLiteral("Bearer sk-SECRET-2")}}});
        b.runs[0].run.settings.insert(QStringLiteral("provider"), provider);
        b.runs[0].run.settings.insert(QStringLiteral("X-Api-Key"), QStringLiteral("sk-SECRET-3"));
        b.runs[0].steps[1].step.usage.insert(QStringLiteral("access_token"), QStringLiteral("sk-SECRET-4"));
        const QByteArray bytes = writeTrajectoryBundle(b);
        QVERIFY(!bytes.contains("SECRET"));
        QVERIFY(!bytes.contains("Authorization"));
        QVERIFY(bytes.contains("\"api_key_env\":\"KEY\""));            // names a variable: no secret
        QVERIFY(bytes.contains("\"api_key_keychain\":\"team-key\""));  // names a keychain entry: no secret
        QVERIFY(bytes.contains("\"headers\":[{}]"));
        QVERIFY(bytes.contains("\"temperature\":0.25"));

        // A bundle written by something else that carries a key: the key is dropped on reading.
        const QByteArray leaky = edited(onRun(0, [](QVariantMap& run) {
            QVariantMap settings = run.value(QStringLiteral("settings")).toMap();
            settings.insert(QStringLiteral("apiKey"), QStringLiteral("sk-SECRET-5"));
            run.insert(QStringLiteral("settings"), settings);
        }));
        QVERIFY(leaky.contains("sk-SECRET-5"));
        auto read = readTrajectoryBundle(leaky);
        QVERIFY(read.ok());
        QVERIFY(!json::write(read->runs[0].run.settings).contains("SECRET"));
        QVERIFY(read->runs[0].run.settings.contains(QStringLiteral("sampling")));
    }

    void malformedInputIsNamed_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        QTest::addColumn<ErrorCode>("code");
        const auto row = [](const char* name, const QByteArray& bytes, const char* error,
                            ErrorCode code = ErrorCode::InvalidInput) {
            QTest::newRow(name) << bytes << QString::fromUtf8(error) << code;
        };
        row("empty", "  \n", "the file is empty");
        row("truncated", "{\"format\": \"kmosaic-trajectories\",\n \"version\": 1, \"runs\": [",
            "not valid JSON: line 2, column 25 (byte 59): unexpected end of input");
        row("trailing comma", "{\"format\": \"kmosaic-trajectories\", \"version\": 1,}",
            "not valid JSON: line 1, column 49 (byte 48): expected a quoted object key");
        row("not an object", "[1, 2]",
            "not a kmosaic-trajectories file (it has no \"format\": \"kmosaic-trajectories\")");
        row("another format", edited(set(QStringLiteral("format"), QStringLiteral("kmosaic-tasks"))),
            "not a kmosaic-trajectories file (it has no \"format\": \"kmosaic-trajectories\")");
        row("newer version", edited(set(QStringLiteral("version"), qint64(3))),
            "version 3 is newer than this kmosaic reads (1)", ErrorCode::Unsupported);
        row("version text", edited(set(QStringLiteral("version"), QStringLiteral("1"))),
            "version is missing or not an integer");
        row("version 0", edited(set(QStringLiteral("version"), qint64(0))), "version 0 is not a version (1, 2, ...)");
        row("no runs", edited(set(QStringLiteral("runs"), {})), "runs is missing");
        row("runs not a list", edited(set(QStringLiteral("runs"), QStringLiteral("all"))), "runs is not a list");
        row("run not an object", edited(set(QStringLiteral("runs"), QVariantList{qint64(1)})),
            "runs[0] is not an object");
        row("no task", edited(onRun(0, set(QStringLiteral("task_id"), {}))), "runs[0]: task_id is missing");
        row("kind", edited(onRun(0, set(QStringLiteral("kind"), QStringLiteral("robot")))),
            "runs[0]: kind 'robot' is not llm or manual");
        row("state", edited(onRun(1, set(QStringLiteral("state"), QStringLiteral("paused")))),
            "runs[1]: state 'paused' is not running, completed, interrupted, cancelled or failed");
        row("started_at", edited(onRun(0, set(QStringLiteral("started_at"), QStringLiteral("yesterday")))),
            "runs[0]: started_at 'yesterday' is not an ISO 8601 time");
        row("no started_at", edited(onRun(0, set(QStringLiteral("started_at"), {}))), "runs[0]: started_at is missing");
        row("settings", edited(onRun(0, set(QStringLiteral("settings"), QVariantList{}))),
            "runs[0]: settings is not an object");
        row("best step", edited(onRun(0, set(QStringLiteral("best_step_idx"), qint64(9)))),
            "runs[0]: best_step_idx 9 names no step");
        row("origin", edited(onRun(0, set(QStringLiteral("origin"), QStringLiteral("abc")))),
            "runs[0]: origin 'abc' is not a sha256 hex id");
        row("step status", edited(onStep(1, 0, set(QStringLiteral("status"), QStringLiteral("FOO")))),
            "runs[1].steps[0]: status 'FOO' is not a verdict status");
        row("step stage", edited(onStep(0, 1, set(QStringLiteral("stage"), QStringLiteral("debug")))),
            "runs[0].steps[1]: stage 'debug' is not implement, repair or optimise");
        row("step idx", edited(onStep(0, 0, set(QStringLiteral("idx"), qint64(-1)))),
            "runs[0].steps[0]: idx is missing or not an index (0, 1, ...)");
        row("step idx twice", edited(onStep(0, 1, set(QStringLiteral("idx"), qint64(0)))),
            "runs[0].steps[1]: idx 0 appears twice");
        row("tokens", edited(onStep(0, 0, set(QStringLiteral("tokens_in"), QStringLiteral("many")))),
            "runs[0].steps[0]: tokens_in is not an integer");
        row("speedup", edited(onStep(0, 2, set(QStringLiteral("speedup"), QStringLiteral("fast")))),
            "runs[0].steps[2]: speedup is not a number");
        row("message", edited(onStep(0, 0, set(QStringLiteral("messages"), QVariantList{QStringLiteral("hi")}))),
            "runs[0].steps[0]: messages[0] is not an object");
        row("step time", edited(onStep(0, 0, set(QStringLiteral("created_at"), {}))),
            "runs[0].steps[0]: created_at is missing");
        row("verdict status",
            edited(onStep(0, 1,
                          [](QVariantMap& s) {
                              QVariantMap v = s.value(QStringLiteral("verdict")).toMap();
                              v.insert(QStringLiteral("status"), QStringLiteral("NOPE"));
                              s.insert(QStringLiteral("verdict"), v);
                          })),
            "runs[0].steps[1].verdict: status 'NOPE' is not a verdict status");
        row("verdict finding",
            edited(onStep(0, 1,
                          [](QVariantMap& s) {
                              QVariantMap v = s.value(QStringLiteral("verdict")).toMap();
                              v.insert(QStringLiteral("findings"), QVariantList{QVariantMap{{"severity", "fatal"}}});
                              s.insert(QStringLiteral("verdict"), v);
                          })),
            "runs[0].steps[1].verdict: findings[0].severity 'fatal' is not error or warning");
        row("verdict not an object", edited(onStep(0, 1, set(QStringLiteral("verdict"), QStringLiteral("PASSED")))),
            "runs[0].steps[1]: verdict is not an object");
        row("verdict without code", edited(onStep(0, 1, set(QStringLiteral("code"), QString()))),
            "runs[0].steps[1]: a verdict without code");
        row("status against verdict", edited(onStep(0, 2, set(QStringLiteral("status"), QStringLiteral("TIMEOUT")))),
            "runs[0].steps[2]: status 'TIMEOUT' differs from its verdict's 'PASSED'");
    }
    void malformedInputIsNamed()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        QFETCH(ErrorCode, code);
        auto r = readTrajectoryBundle(bytes);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().message, error);
        QCOMPARE(r.error().code, code);
    }
};

QTEST_GUILESS_MAIN(TestTrajectoryBundle)
#include "test_trajectory_bundle.moc"
