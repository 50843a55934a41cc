// An agent run whose provider key is in kmosaic's environment, with a model that quotes the key verbatim and
// writes code that rebuilds it at run time and hunts for keys (its environment, every /proc/<pid>/environ): after
// the run and `agent export`, the key is in no store file, no bundle, no output; where it was, [redacted] is.
#include "../common/CliRun.h"
#include "../common/FakeLlmServer.h"
#include "../common/HonestLeakyRelu.h"
#include "../common/LeakySolution.h"
#include "util/Json.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {
using km::test::FakeLlmServer;
using km::test::Run;

const QString kKey = QStringLiteral("sk-planted-agent-0123456789abcdef");

QJsonObject reply(const QString& content)
{
    return {{"kind", "reply"}, {"content", content}, {"chunk_chars", 400}, {"chunk_delay_ms", 0}};
}

QString passing()
{
    return QStringLiteral("```python\n%1```\n").arg(km::test::honestLeakyRelu());
}

QByteArray fileBytes(const QStringList& paths)
{
    QByteArray all;
    for (const QString& p : paths) {
        QFile f(p);
        if (f.open(QIODevice::ReadOnly))
            all += f.readAll();
    }
    return all;
}
}  // namespace

class TestAgentSecrets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theKeyIsInNoStoreBundleNorOutput()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString db = dir.filePath(QStringLiteral("store.sqlite"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("OPENAI_API_KEY"), kKey);
        auto kmosaic = [&](const QStringList& args) {
            return km::test::runKmosaic(args, 300000, env);
        };
        const Run imported = kmosaic({"--db", db, "import", QStringLiteral(KMOSAIC_TASKS_DIR "/leaky-relu")});
        QVERIFY2(imported.code == 0, qPrintable(imported.err));

        // Step 1: the key verbatim in the text, and code that puts it together again only when it runs.
        const QString hunting = QStringLiteral("Your key is %1, as you asked.\n\n```python\n%2```\n")
                                    .arg(kKey, km::test::leakySolution(QStringLiteral("'sk-plan' + 'ted-agent-' + "
                                                                                      "'0123456789abcdef'")));
        FakeLlmServer server(QJsonArray{reply(hunting), reply(passing())});
        QVERIFY(server.started());
        const QString provider = dir.filePath(QStringLiteral("provider.json"));
        QFile pf(provider);
        QVERIFY(pf.open(QIODevice::WriteOnly));
        pf.write(QJsonDocument(QJsonObject{{"name", "fake"},
                                           {"base_url", server.baseUrl()},
                                           {"model", "fake-model"},
                                           {"api_key_env", "OPENAI_API_KEY"}})
                     .toJson());
        pf.close();

        const Run r = kmosaic({"--db", db, "agent", "run", "--task", "leaky-relu", "--provider", provider, "--device",
                               "cpu", "--seeds", "1", "--target-speedup", "0.01", "--max-turns", "2", "--build-cache",
                               KMOSAIC_VERIFY_BUILD_CACHE, "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QVERIFY(
            server.requests().value(0).value("headers").toObject().value("authorization").toString().endsWith(kKey));
        const qint64 id = km::json::parse(r.out.trimmed().toUtf8(), nullptr)
                              .value_or(QVariant())
                              .toMap()
                              .value(QStringLiteral("id"))
                              .toLongLong();
        const Run show = kmosaic({"--db", db, "agent", "show", QString::number(id), "--json"});
        QCOMPARE(show.code, 0);
        const QString bundle = dir.filePath(QStringLiteral("bundle.json"));
        const Run exported = kmosaic({"--db", db, "agent", "export", QString::number(id), "-o", bundle});
        QCOMPARE(exported.code, 0);

        // Where the key was: the reply quoted it, the verdict of step 1 and the repair prompt carried it.
        const QVariantList steps =
            km::json::parse(show.out.trimmed().toUtf8(), nullptr).value_or(QVariant()).toMap().value("steps").toList();
        QCOMPARE(steps.size(), 2);
        const QVariantMap first = steps[0].toMap(), second = steps[1].toMap();
        QCOMPARE(first.value("status").toString(), QStringLiteral("RUNTIME_ERROR"));
        QVERIFY2(first.value("reply").toString().contains(QLatin1String("Your key is [redacted], as")),
                 qPrintable(first.value("reply").toString()));
        QVERIFY2(first.value("summary").toString().contains(QLatin1String("[redacted] OPENAI_API_KEY=<absent>")),
                 qPrintable(first.value("summary").toString()));
        QVERIFY2(second.value("prompt").toString().contains(QLatin1String("[redacted]")),
                 qPrintable(second.value("prompt").toString()));

        const QByteArray everything = fileBytes({db, QString(db + QStringLiteral("-wal")), bundle}) +
                                      (r.out + r.err).toUtf8() +
                                      (show.out + show.err + exported.out + exported.err).toUtf8();
        QVERIFY(everything.contains("[redacted]"));
        QVERIFY2(!everything.contains("sk-planted"), "the key is in a store, bundle or output");
        QVERIFY(!everything.contains(kKey.toUtf8().toBase64()));
    }
};

QTEST_GUILESS_MAIN(TestAgentSecrets)
#include "test_agent_secrets.moc"
