// Known secrets are scrubbed from text in every form they travel in, and from everything the stores write and the
// bundle writer carries: what reaches the store file says [redacted].
#include "../common/StoreBytes.h"
#include "StoreTestSupport.h"
#include "agent/TrajectoryBundle.h"
#include "model/ScrubbedValues.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"
#include "util/SecretScrubber.h"

#include <QUrl>

using namespace km::storetest;

namespace {
using km::test::storeBytes;
const QString kKey = QStringLiteral("sk-planted/unit+\"key\"0123456789");

SecretScrubber secrets()
{
    SecretScrubber s;
    s.add(kKey);
    s.add(QStringLiteral("EMPTY"));  // a placeholder, not a secret: kept
    return s;
}

void verifyNoKey(const QByteArray& bytes)
{
    QVERIFY(!bytes.isEmpty());
    QVERIFY2(!bytes.contains("sk-planted"), "the key is in the bytes");
    QVERIFY2(!bytes.contains(QUrl::toPercentEncoding(kKey)), "the percent-encoded key is in the bytes");
    QVERIFY2(!bytes.contains(kKey.toUtf8().toBase64()), "the base64 key is in the bytes");
}
}  // namespace

class TestSecretScrubber : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyFormIsRedacted_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("as is") << QString(QStringLiteral("key=") + kKey + QStringLiteral(" end"))
                               << QStringLiteral("key=[redacted] end");
        QTest::newRow("twice") << QString(kKey + kKey) << QStringLiteral("[redacted][redacted]");
        QTest::newRow("JSON-escaped") << QStringLiteral("{\"k\": \"sk-planted\\/unit+\\\"key\\\"0123456789\"}")
                                      << QStringLiteral("{\"k\": \"[redacted]\"}");
        QTest::newRow("percent-encoded") << QString(QStringLiteral("?key=") +
                                                    QString::fromLatin1(QUrl::toPercentEncoding(kKey)))
                                         << QStringLiteral("?key=[redacted]");
        QTest::newRow("base64") << QString(QStringLiteral("b64 ") + QString::fromLatin1(kKey.toUtf8().toBase64()))
                                << QStringLiteral("b64 [redacted]");
        QTest::newRow("placeholder kept") << QStringLiteral("api key EMPTY") << QStringLiteral("api key EMPTY");
        QTest::newRow("a part is kept") << QStringLiteral("sk-planted") << QStringLiteral("sk-planted");
    }
    void everyFormIsRedacted()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(secrets().scrub(text), expected);
        QCOMPARE(secrets().scrub(text.toUtf8()), expected.toUtf8());
    }

    void nothingKnownChangesNothing()
    {
        const SecretScrubber none;
        QVERIFY(none.isEmpty());
        QCOMPARE(none.scrub(kKey), kKey);
    }

    void variantsAtAnyDepth()
    {
        const QVariantMap m{{QStringLiteral("a"), QVariantList{kKey, 3, QVariantMap{{kKey, kKey}}}},
                            {QStringLiteral("n"), 1.5}};
        const QByteArray out = json::write(secrets().scrub(m));
        QCOMPARE(out, QByteArray(R"({"a":["[redacted]",3,{"[redacted]":"[redacted]"}],"n":1.5})"));
    }

    // Both stores scrub what they write; the file holds no key, and reading back says [redacted].
    void storesWriteNoKey()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.sqlite"));
        auto opened = TaskStore::open(path);
        QVERIFY(opened.ok());
        TaskStore& store = *opened.value();
        VERIFY_OK(store.upsertTasks(filterTasks(), "test", "seed"));
        const QString taskId = filterTasks().first().id;

        Verdict v;
        v.status = VerdictStatus::RuntimeError;
        v.summary = QStringLiteral("RuntimeError: ") + kKey;
        v.isolation = QStringLiteral("netns");
        v.findings = {{QStringLiteral("static.x"), Finding::Severity::Warning, 2, QStringLiteral("saw ") + kKey}};
        v.diagnostics = {{QStringLiteral("error"), 3, QStringLiteral("main.cpp"), 9, kKey}};
        v.evidence = {{QStringLiteral("error"),
                       QVariantMap{{QStringLiteral("traceback"), QString(QStringLiteral("raise ") + kKey)}}}};
        v.environment = {{QStringLiteral("note"), kKey}};
        VerdictStore verdicts(store.database(), secrets());
        auto sol = verdicts.addSolution(taskId, QStringLiteral("KEY = '%1'\n").arg(kKey), "manual", "test");
        VERIFY_OK(sol);
        QCOMPARE(sol->code, QStringLiteral("KEY = '[redacted]'\n"));
        auto stored = verdicts.addVerdict(sol->id, v, "test");
        VERIFY_OK(stored);
        auto back = verdicts.verdict(stored->id);
        VERIFY_OK(back);
        QCOMPARE(back.value()->summary, QStringLiteral("RuntimeError: [redacted]"));
        QCOMPARE(back.value()->findings.value(0).message, QStringLiteral("saw [redacted]"));

        TrajectoryStore trajectories(store.database(), secrets());
        AgentRun run;
        run.taskId = taskId;
        run.model = QStringLiteral("m");
        run.settings = {{QStringLiteral("note"), kKey}};
        auto created = trajectories.createRun(run, "test");
        VERIFY_OK(created);
        TrajectoryStep step;
        step.stage = Stage::Implement;
        step.prompt = QStringLiteral("prompt ") + kKey;
        step.reply = QStringLiteral("reply ") + kKey;
        step.code = QStringLiteral("raise RuntimeError('%1')\n").arg(kKey);
        step.messages = {
            QVariantMap{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), kKey}}};
        auto recorded = trajectories.recordStep(created.value(), step, v, false, "test");
        VERIFY_OK(recorded);
        QCOMPARE(recorded->reply, QStringLiteral("reply [redacted]"));
        QCOMPARE(recorded->summary, QStringLiteral("RuntimeError: [redacted]"));
        VERIFY_OK(trajectories.finishRun(created->id, RunState::Failed, QStringLiteral("why: ") + kKey, {}));

        // The bundle writer scrubs again what a store written without secrets would hold.
        TrajectoryBundle bundle;
        bundle.label = kKey;
        BundledRun b;
        b.run = run;
        b.run.startedAt = QDateTime::currentDateTimeUtc();
        b.steps = {BundledStep{step, v}};
        b.origin = trajectoryOrigin(b);
        bundle.runs = {b};
        verifyNoKey(writeTrajectoryBundle(bundle, secrets()));
        QVERIFY(writeTrajectoryBundle(bundle).contains("sk-planted"));  // without secrets: as it was

        VERIFY_OK(trajectories.importRun(b, {}, "test"));
        verifyNoKey(storeBytes(path));
        QVERIFY(storeBytes(path).contains("[redacted]"));
    }
};

QTEST_GUILESS_MAIN(TestSecretScrubber)
#include "test_secret_scrubber.moc"
