// API keys from the desktop keychain, end to end: the real kmosaic binary, a real Secret Service (gnome-keyring on
// a private D-Bus session bus, started by with_secret_service.sh) and fake_llm_server.py. The key is set, checked,
// sent as "Authorization: Bearer" (by run and resume), and found in no store file, export or output; deleted, it is
// gone. A missing entry, an unreachable keychain and a hung one each end in a clear error before any request.
#include "../common/CliRun.h"
#include "../common/FakeLlmServer.h"
#include "../common/StoreBytes.h"
#include "util/Json.h"

#include <QDir>
#include <QLocalServer>
#include <QTemporaryDir>
#include <QtTest>

namespace {
using km::test::FakeLlmServer;
using km::test::Run;
using km::test::storeBytes;

const QString kEntry = QStringLiteral("kmosaic-test-provider");
const QString kAbsentEntry = QStringLiteral("kmosaic-test-never-stored");
const QString kKey = QStringLiteral("sk-keychain-test-5f6e7d8c9b0a1f2e");
const QString kEnvKey = QStringLiteral("sk-environment-test-0a1b2c3d4e5f");
const QString kEnvName = QStringLiteral("KMOSAIC_TEST_KEYCHAIN_ENV_KEY");
constexpr int kCommandMs = 120000;  // far above the keychain's own 15 s limit: a hang fails the test, not CI

// The test's environment, without the fallback variable unless `envKey` is given.
QProcessEnvironment environment(const QString& envKey = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(kEnvName);
    if (!envKey.isEmpty())
        env.insert(kEnvName, envKey);
    return env;
}

Run kmosaic(const QStringList& args, const QProcessEnvironment& env = environment(),
            const std::optional<QByteArray>& input = std::nullopt)
{
    return km::test::runKmosaic(args, kCommandMs, env, input);
}

QString output(const Run& r)
{
    return r.out + r.err;
}

QJsonObject reply(const QString& content)
{
    return {{"kind", "reply"}, {"content", content}, {"chunk_chars", 400}, {"chunk_delay_ms", 0}};
}

// A 401 whose body quotes the key it was sent, as some servers do: the client must redact it everywhere.
QJsonObject refusal()
{
    return {
        {"kind", "status"},
        {"code", 401},
        {"body", R"({"error": {"message": "Incorrect API key provided: $AUTH", "type": "invalid_request_error"}})"}};
}

QString writeProvider(const QString& dir, const FakeLlmServer& server, const QString& entry)
{
    const QString path = dir + "/provider.json";
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(QJsonDocument(QJsonObject{{"name", "fake"},
                                          {"base_url", server.baseUrl()},
                                          {"model", "fake-model"},
                                          {"api_key_keychain", entry},
                                          {"api_key_env", kEnvName},
                                          {"timeouts", QJsonObject{{"connect_s", 5}, {"total_s", 60}}},
                                          {"retries", QJsonObject{{"max_attempts", 1}}}})
                    .toJson());
    return path;
}

QVariantMap jsonObject(const QString& text)
{
    return km::json::parse(text.trimmed().toUtf8(), nullptr).value_or(QVariant()).toMap();
}

QStringList authorizations(const FakeLlmServer& server)
{
    QStringList out;
    for (const QJsonObject& r : server.requests())
        out << r.value("headers").toObject().value("authorization").toString();
    return out;
}

}  // namespace

class TestKeychain : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariableIsEmpty("KMOSAIC_TEST_PRIVATE_KEYRING"))
            QSKIP("needs the private keyring of with_secret_service.sh (run it through ctest); the user's own "
                  "keyring is never written to");
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("store.sqlite");
        const Run r = kmosaic({"--db", m_db, "import", QStringLiteral(KMOSAIC_TASKS_DIR "/silu")});
        QVERIFY2(r.code == 0, qPrintable(output(r)));
    }

    void setCheckRunResumeAndExport()
    {
        const Run before = kmosaic({"agent", "key", "check", kEntry});
        QCOMPARE(before.code, 1);
        QVERIFY2(before.out.contains("does not exist"), qPrintable(output(before)));

        const Run empty = kmosaic({"agent", "key", "set", kEntry}, environment(), QByteArray("  \n"));
        QCOMPARE(empty.code, 2);
        QVERIFY2(empty.err.contains("no key on stdin"), qPrintable(output(empty)));
        QCOMPARE(kmosaic({"agent", "key", "check", kEntry}).code, 1);  // nothing stored

        const Run set = kmosaic({"agent", "key", "set", kEntry}, environment(), "  " + kKey.toUtf8() + "  \n");
        QVERIFY2(set.code == 0, qPrintable(output(set)));
        QVERIFY(set.out.contains(kEntry));
        const Run check = kmosaic({"agent", "key", "check", kEntry});
        QVERIFY2(check.code == 0, qPrintable(output(check)));
        QVERIFY(check.out.contains("exists"));

        // Step 1: a reply without code; step 2: the key refused, the server quoting it back. The keychain's key
        // wins over the variable's, which is set too.
        QTemporaryDir dir;
        FakeLlmServer server({reply("I would rather explain the idea in words."), refusal()});
        QVERIFY(server.started());
        const Run run = kmosaic({"--db", m_db, "agent", "run", "--task", "silu", "--provider",
                                 writeProvider(dir.path(), server, kEntry), "--max-turns", "2", "--json"},
                                environment(kEnvKey));
        QVERIFY2(run.code == 1, qPrintable(output(run)));
        QCOMPARE(authorizations(server), QStringList(2, "Bearer " + kKey));
        const QVariantMap summary = jsonObject(run.out);
        QCOMPARE(summary.value("state").toString(), QStringLiteral("failed"));
        QVERIFY2(summary.value("error").toString().contains("Incorrect API key provided: [redacted]"),
                 qPrintable(run.out));
        const QString id = summary.value("id").toString();
        QVERIFY(storeBytes(m_db).contains("Incorrect API key provided: [redacted]"));  // the run's error, stored

        // Resume resolves the key again, from the entry the run recorded (the script is spent: 410).
        const Run resumed = kmosaic({"--db", m_db, "agent", "resume", id}, environment(kEnvKey));
        QCOMPARE(resumed.code, 1);
        QCOMPARE(authorizations(server), QStringList(3, "Bearer " + kKey));

        const QString bundle = dir.filePath("bundle.json");
        const Run exported = kmosaic({"--db", m_db, "agent", "export", id, "-o", bundle});
        QVERIFY2(exported.code == 0, qPrintable(output(exported)));
        QFile file(bundle);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bundleBytes = file.readAll();
        QVERIFY(
            bundleBytes.contains(QByteArray("\"api_key_keychain\":\"" + kEntry.toUtf8() + "\"")));  // a name, not a key

        const Run shown = kmosaic({"--db", m_db, "agent", "show", id, "--json"});
        QCOMPARE(jsonObject(shown.out)
                     .value("settings")
                     .toMap()
                     .value("source")
                     .toMap()
                     .value("provider")
                     .toMap()
                     .value("api_key_keychain"),
                 QVariant(kEntry));
        for (const Run& r : {set, check, run, resumed, exported, shown})
            QVERIFY2(!output(r).contains(kKey) && !output(r).contains(kEnvKey), qPrintable(output(r)));
        QVERIFY(!bundleBytes.contains(kKey.toUtf8()));
        QVERIFY(!storeBytes(m_db).contains(kKey.toUtf8()));
    }

    void deleteThenCheckSaysAbsent()
    {
        const Run removed = kmosaic({"agent", "key", "delete", kEntry});
        QVERIFY2(removed.code == 0, qPrintable(output(removed)));
        const Run check = kmosaic({"agent", "key", "check", kEntry});
        QCOMPARE(check.code, 1);
        QVERIFY2(check.out.contains("does not exist"), qPrintable(output(check)));
        const Run again = kmosaic({"agent", "key", "delete", kEntry});
        QCOMPARE(again.code, 1);
        QVERIFY2(again.err.contains("does not exist"), qPrintable(output(again)));
    }

    // No entry and no variable: the run never starts and nothing is sent. With the variable set it stands in.
    void missingEntryFailsBeforeAnyRequest()
    {
        QTemporaryDir dir;
        FakeLlmServer server({reply("No code here.")});
        QVERIFY(server.started());
        const QString provider = writeProvider(dir.path(), server, kAbsentEntry);
        const int runsBefore = runCount();
        const Run r = kmosaic({"--db", m_db, "agent", "run", "--task", "silu", "--provider", provider, "--json"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("keychain entry \"" + kAbsentEntry + "\"") && r.err.contains("does not exist") &&
                     r.err.contains("$" + kEnvName + " is not set") &&
                     r.err.contains("kmosaic agent key set " + kAbsentEntry),
                 qPrintable(output(r)));
        QCOMPARE(server.requests().size(), 0);
        QCOMPARE(runCount(), runsBefore);

        const Run fallback = kmosaic(
            {"--db", m_db, "agent", "run", "--task", "silu", "--provider", provider, "--max-turns", "1", "--json"},
            environment(kEnvKey));
        QVERIFY2(fallback.code == 3, qPrintable(output(fallback)));  // completed, no pass
        QCOMPARE(authorizations(server), QStringList{"Bearer " + kEnvKey});
    }

    // A session bus that is not there: a clear error at once, and no fallback to the variable (the entry was
    // asked for).
    void unreachableKeychainFailsBeforeAnyRequest()
    {
        QTemporaryDir dir;
        FakeLlmServer server({reply("No code here.")});
        QVERIFY(server.started());
        QProcessEnvironment env = environment(kEnvKey);
        env.insert("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + dir.filePath("no-bus-here"));
        for (const QString& sub : {QStringLiteral("check"), QStringLiteral("delete")}) {
            const Run r = kmosaic({"agent", "key", sub, kEntry}, env);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("keychain entry \"" + kEntry + "\"") &&
                         r.err.contains("the keychain failed to read it"),
                     qPrintable(output(r)));
        }
        const Run set = kmosaic({"agent", "key", "set", kEntry}, env, kKey.toUtf8() + "\n");
        QCOMPARE(set.code, 1);
        QVERIFY2(set.err.contains("the keychain failed to store it"), qPrintable(output(set)));
        const Run run = kmosaic(
            {"--db", m_db, "agent", "run", "--task", "silu", "--provider", writeProvider(dir.path(), server, kEntry)},
            env);
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.contains("the API key could not be read") && run.err.contains(kEntry),
                 qPrintable(output(run)));
        QCOMPARE(server.requests().size(), 0);
        QCOMPARE(kmosaic({"agent", "key", "check", kEntry}).code, 1);  // nothing was stored through the dead bus
    }

    // A "bus" that accepts the connection and never says a word: the command gives up after its limit.
    void hungKeychainTimesOut()
    {
        QTemporaryDir dir;
        QLocalServer silent;
        QVERIFY(silent.listen(dir.filePath("silent-bus")));
        QProcessEnvironment env = environment();
        env.insert("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + silent.fullServerName());
        const Run r = kmosaic({"agent", "key", "check", kEntry}, env);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("did not answer within 15 s"), qPrintable(output(r)));
    }

private:
    int runCount()
    {
        const Run r = kmosaic({"--db", m_db, "agent", "list", "--json"});
        return int(r.out.split('\n', Qt::SkipEmptyParts).size());
    }

    QTemporaryDir m_dir;
    QString m_db;
};

QTEST_GUILESS_MAIN(TestKeychain)
#include "test_keychain.moc"
