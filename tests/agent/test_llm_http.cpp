// The LLM client over real sockets against fake_llm_server.py, a scripted OpenAI-compatible server: streamed and
// plain replies, retries (429 with Retry-After, 5xx, stalls, truncated and malformed streams), limits, cancellation
// from another thread, and the API key sent as Bearer yet found in no error, log line or reply.
#include "../common/FakeLlmServer.h"
#include "agent/LlmClient.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QtTest>
#include <thread>

using namespace km;

namespace {

const char* const kKeyEnv = "KMOSAIC_TEST_LLM_HTTP_KEY";
const QString kKey = QStringLiteral("sk-http-test-3a4b5c6d7e8f9a0b");
constexpr int kStartMs = 15000;

// Everything logged while the tests run (kmosaic.agent at debug level), to prove the key never appears there.
QMutex g_logMutex;
QStringList g_log;
void captureMessage(QtMsgType, const QMessageLogContext&, const QString& message)
{
    QMutexLocker lock(&g_logMutex);
    g_log << message;
}
QString loggedText()
{
    QMutexLocker lock(&g_logMutex);
    return g_log.join('\n');
}

using FakeServer = km::test::FakeLlmServer;

#define START(server) QVERIFY2((server).started(), "the fake LLM server did not start (see its stderr above)")

// Short timeouts and backoffs, so that a retry costs milliseconds.
ProviderConfig configFor(const FakeServer& server)
{
    ProviderConfig c;
    c.name = "fake";
    c.baseUrl = server.baseUrl();
    c.model = "test-model";
    c.timeouts = {5, 20, 5};
    c.retries = {3, 20, 200};
    return c;
}

ChatRequest request(bool stream = true)
{
    ChatRequest r;
    r.messages = {{"system", "You write CUDA."}, {"user", "Say hello."}};
    r.temperature = 0.25;
    r.stream = stream;
    return r;
}

QJsonObject reply(const QJsonArray& chunks, const QJsonObject& more = {})
{
    QJsonObject o{{"kind", "reply"}, {"chunks", chunks}};
    for (auto it = more.begin(); it != more.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QJsonObject usage(int prompt, int completion)
{
    return {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

QString why(const Result<ChatReply>& r)
{
    return r.ok() ? QString() : r.error().message + " | " + r.error().detail;
}

}  // namespace

class TestLlmHttp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("kmosaic.agent=true"));  // every level
        qInstallMessageHandler(captureMessage);
        qunsetenv(kKeyEnv);
    }

    void streamingReply_data()
    {
        QTest::addColumn<bool>("crlf");
        QTest::newRow("LF") << false;
        QTest::newRow("CRLF with comments") << true;
    }
    void streamingReply()
    {
        QFETCH(bool, crlf);
        FakeServer server(
            {reply({"Hel", "lo, ", "wor", "ld"},
                   {{"usage", usage(12, 4)}, {"chunk_delay_ms", 20}, {"crlf", crlf}, {"comments", crlf}})});
        START(server);
        QStringList deltas;
        const Result<ChatReply> r =
            LlmClient(configFor(server)).complete(request(), [&](const QString& d) { deltas << d; });
        QVERIFY2(r.ok(), qPrintable(why(r)));
        QCOMPARE(deltas, (QStringList{"Hel", "lo, ", "wor", "ld"}));
        QCOMPARE(r->content, QString("Hello, world"));
        QCOMPARE(r->finishReason, QString("stop"));
        QVERIFY(r->usage.has_value());
        QCOMPARE(*r->usage, (ChatUsage{12, 4, 16}));
        QCOMPARE(r->model, QString("test-model"));
        QCOMPARE(r->attempts, 1);
        QCOMPARE(r->httpStatus, 200);
        QVERIFY(r->latencyMs > 0);
        QVERIFY(r->rawResponse.endsWith("[DONE]"));

        const QList<QJsonObject> sent = server.requests();
        QCOMPARE(sent.size(), 1);
        QCOMPARE(sent[0].value("path").toString(), QString("/v1/chat/completions"));
        const QJsonObject body = sent[0].value("body").toObject();
        QCOMPARE(body.value("model").toString(), QString("test-model"));
        QCOMPARE(body.value("stream").toBool(), true);
        QCOMPARE(body.value("stream_options").toObject().value("include_usage").toBool(), true);
        QCOMPARE(body.value("temperature").toDouble(), 0.25);
        const QJsonArray messages = body.value("messages").toArray();
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].toObject().value("role").toString(), QString("system"));
        QCOMPARE(messages[1].toObject().value("content").toString(), QString("Say hello."));
        QVERIFY2(!sent[0].value("headers").toObject().contains("authorization"), "no key configured, none sent");
    }

    void nonStreamingReply()
    {
        FakeServer server({reply({"Whole ", "answer"}, {{"usage", usage(7, 2)}})});
        START(server);
        QStringList deltas;
        ChatRequest req = request(false);
        req.model = "other-model";
        const Result<ChatReply> r = LlmClient(configFor(server)).complete(req, [&](const QString& d) { deltas << d; });
        QVERIFY2(r.ok(), qPrintable(why(r)));
        QCOMPARE(r->content, QString("Whole answer"));
        QCOMPARE(deltas, QStringList{"Whole answer"});
        QCOMPARE(*r->usage, (ChatUsage{7, 2, 9}));
        QCOMPARE(r->model, QString("other-model"));
        QVERIFY(r->rawResponse.startsWith("{"));
        const QJsonObject body = server.requests().value(0).value("body").toObject();
        QCOMPARE(body.value("stream").toBool(true), false);
        QVERIFY(!body.contains("stream_options"));
        QCOMPARE(body.value("model").toString(), QString("other-model"));
    }

    void serverIgnoringStreamFlag()  // asked to stream, it answers with one JSON body
    {
        FakeServer server({reply({"plain"}, {{"stream", false}})});
        START(server);
        const Result<ChatReply> r = LlmClient(configFor(server)).complete(request(true));
        QVERIFY2(r.ok(), qPrintable(why(r)));
        QCOMPARE(r->content, QString("plain"));
    }

    // Retry-After is honoured: the client announces a wait of the server's 1000 ms (its own backoff here is 10-200 ms)
    // and sends the second attempt after it. How long the wait really lasts is measured by bench/llm_http_bench.
    void rateLimitedThenSuccess()
    {
        FakeServer server({QJsonObject{{"kind", "status"}, {"code", 429}, {"retry_after", "1"}, {"body", "slow down"}},
                           reply({"ok"})});
        START(server);
        QList<int> retries;
        const qsizetype logged = loggedText().size();
        const Result<ChatReply> r =
            LlmClient(configFor(server)).complete(request(), {}, nullptr, [&](int next, const Error& e) {
                retries << next;
                QVERIFY(e.message.contains("429"));
            });
        QVERIFY2(r.ok(), qPrintable(why(r)));
        QCOMPARE(r->attempts, 2);
        QCOMPARE(retries, QList<int>{2});
        const QString log = loggedText().mid(logged);
        QVERIFY2(log.contains("; attempt 2 of 3 in 1000 ms"), qPrintable(log));
        QCOMPARE(server.requests().size(), 2);
    }

    // While a long Retry-After (120 s) is owed, no second request goes out: a cancel during the wait, well after the
    // longest backoff (200 ms) would have sent it, ends the call with the server having seen one request.
    void cancelDuringRetryAfter()
    {
        FakeServer server(
            {QJsonObject{{"kind", "status"}, {"code", 503}, {"retry_after", "120"}}, reply({"too early"})});
        START(server);
        std::atomic<bool> cancel{false};
        std::atomic<bool> retryAnnounced{false};
        std::thread canceller([&] {
            const QDeadlineTimer deadline(kStartMs);
            while (!retryAnnounced.load() && !deadline.hasExpired())
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            cancel = true;
        });
        const Result<ChatReply> r =
            LlmClient(configFor(server)).complete(request(), {}, &cancel, [&](int, const Error&) {
                retryAnnounced = true;
            });
        canceller.join();
        QVERIFY(retryAnnounced.load());
        QVERIFY2(!r.ok(), "the retry went out before Retry-After: 120 had passed");
        QCOMPARE(r.error().code, ErrorCode::Cancelled);
        QCOMPARE(server.requests().size(), 1);
    }

    void serverErrorThenSuccess()
    {
        FakeServer server({QJsonObject{{"kind", "status"}, {"code", 500}}, reply({"fine"})});
        START(server);
        const Result<ChatReply> r = LlmClient(configFor(server)).complete(request());
        QVERIFY2(r.ok(), qPrintable(why(r)));
        QCOMPARE(r->attempts, 2);
        QCOMPARE(r->content, QString("fine"));
    }

    // A failed attempt's deltas are superseded: onRetry tells the caller, and the reply is the new attempt's alone.
    void stallThenSuccess()
    {
        FakeServer server({QJsonObject{{"kind", "stall"}, {"after_chunks", 2}, {"seconds", 30}, {"content", "abcdef"}},
                           reply({"fresh"})});
        START(server);
        ProviderConfig c = configFor(server);
        c.timeouts.stallS = 1;
        QStringList deltas;
        QStringList reasons;
        const Result<ChatReply> r = LlmClient(c).complete(
            request(), [&](const QString& d) { deltas << d; }, nullptr,
            [&](int, const Error& e) {
                reasons << e.message;
                deltas.clear();
            });
        QVERIFY2(r.ok(), qPrintable(why(r)));
        QCOMPARE(r->attempts, 2);
        QCOMPARE(reasons.size(), 1);
        QVERIFY2(reasons[0].contains("stall"), qPrintable(reasons[0]));
        QCOMPARE(deltas, QStringList{"fresh"});
        QCOMPARE(r->content, QString("fresh"));
    }

    void truncatedThenSuccess_data()
    {
        QTest::addColumn<QJsonObject>("first");
        QTest::addColumn<QString>("reason");
        QTest::newRow("socket closed mid-chunk") << QJsonObject{{"kind", "truncate"}, {"after_chunks", 2}}
                                                 << "the connection broke in the middle of the reply";
        QTest::newRow("clean end, no finish, no [DONE]")
            << reply({"half"}, {{"finish_reason", QJsonValue()}, {"done", false}}) << "truncated";
    }
    void truncatedThenSuccess()
    {
        QFETCH(QJsonObject, first);
        QFETCH(QString, reason);
        FakeServer server({first, reply({"whole"})});
        START(server);
        QStringList reasons;
        const Result<ChatReply> r =
            LlmClient(configFor(server)).complete(request(), {}, nullptr, [&](int, const Error& e) {
                reasons << e.message;
            });
        QVERIFY2(r.ok(), qPrintable(why(r)));
        QCOMPARE(r->attempts, 2);
        QCOMPARE(r->content, QString("whole"));
        QCOMPARE(reasons.size(), 1);
        QVERIFY2(reasons[0].contains(reason), qPrintable(reasons[0]));
    }

    void malformedUntilAttemptsRunOut_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("stream chunk") << true;
        QTest::newRow("body") << false;
    }
    void malformedUntilAttemptsRunOut()
    {
        QFETCH(bool, stream);
        const QJsonObject bad{{"kind", "malformed"}};
        FakeServer server({bad, bad, bad, reply({"never reached"})});
        START(server);
        const Result<ChatReply> r = LlmClient(configFor(server)).complete(request(stream));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Io);
        QVERIFY2(r.error().message.contains("not a JSON object"), qPrintable(r.error().message));
        QVERIFY2(r.error().message.contains("gave up after 3 attempts"), qPrintable(r.error().message));
        QVERIFY2(r.error().detail.contains("broken"), qPrintable(r.error().detail));
        QCOMPARE(server.requests().size(), 3);
    }

    void hugeReplyRefused_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("stream") << true;
        QTest::newRow("body") << false;
    }
    void hugeReplyRefused()
    {
        QFETCH(bool, stream);
        FakeServer server({QJsonObject{{"kind", "huge"}, {"bytes", 8000000}}, reply({"never reached"})});
        START(server);
        const Result<ChatReply> r = LlmClient(configFor(server)).complete(request(stream));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        QVERIFY2(r.error().message.contains("max_reply_bytes (4194304 bytes)"), qPrintable(r.error().message));
        QCOMPARE(server.requests().size(), 1);  // not retried
    }

    void cancelFromAnotherThread_data()
    {
        QTest::addColumn<QJsonObject>("script");
        QJsonArray many;
        for (int i = 0; i < 200; ++i)
            many << QString("tok%1 ").arg(i);
        QTest::newRow("while tokens arrive") << reply(many, {{"chunk_delay_ms", 50}});
        QTest::newRow("while the server is silent")
            << QJsonObject{{"kind", "stall"}, {"after_chunks", 1}, {"seconds", 30}};
    }
    void cancelFromAnotherThread()
    {
        QFETCH(QJsonObject, script);
        FakeServer server({script});
        START(server);
        std::atomic<bool> cancel{false};
        std::atomic<int> received{0};
        std::thread canceller([&] {
            const QDeadlineTimer deadline(kStartMs);
            while (received.load() < 1 && !deadline.hasExpired())
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            cancel = true;
        });
        const Result<ChatReply> r = LlmClient(configFor(server))
                                        .complete(
                                            request(), [&](const QString&) { ++received; }, &cancel);
        canceller.join();
        QVERIFY2(!r.ok(), "a 10 s stream or a 30 s silence cannot finish before the cancel");
        QCOMPARE(r.error().code, ErrorCode::Cancelled);
        QVERIFY(received.load() >= 1);
        QVERIFY2(received.load() < 200, "the cancel stopped the stream before its end");
        QCOMPARE(server.requests().size(), 1);
    }

    void clientErrorsNotRetried_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("code");
        QTest::newRow("400") << 400 << int(ErrorCode::InvalidInput);
        QTest::newRow("401") << 401 << int(ErrorCode::InvalidInput);
        QTest::newRow("403") << 403 << int(ErrorCode::InvalidInput);
        QTest::newRow("404") << 404 << int(ErrorCode::NotFound);
    }
    void clientErrorsNotRetried()
    {
        QFETCH(int, status);
        QFETCH(int, code);
        qputenv(kKeyEnv, kKey.toUtf8());
        const QString body =
            QString(R"({"error":{"message":"Incorrect API key provided: $AUTH","code":%1}})").arg(status);
        FakeServer server({QJsonObject{{"kind", "status"}, {"code", status}, {"body", body}}, reply({"never"})});
        START(server);
        ProviderConfig c = configFor(server);
        c.apiKeyEnv = QString::fromLatin1(kKeyEnv);
        const Result<ChatReply> r = LlmClient(c).complete(request());
        qunsetenv(kKeyEnv);
        QVERIFY(!r.ok());
        QCOMPARE(int(r.error().code), code);
        QCOMPARE(server.requests().size(), 1);
        QVERIFY2(r.error().message.contains(QString("HTTP %1").arg(status)), qPrintable(r.error().message));
        QVERIFY2(r.error().message.contains("Incorrect API key provided: [redacted]"), qPrintable(r.error().message));
        QVERIFY2(r.error().detail.contains("Incorrect API key provided: [redacted]"), qPrintable(r.error().detail));
        const QJsonObject headers = server.requests()[0].value("headers").toObject();
        QCOMPARE(headers.value("authorization").toString(), "Bearer " + kKey);  // it was sent ...
        QVERIFY(!r.error().message.contains(kKey));                             // ... and leaks nowhere
        QVERIFY(!r.error().detail.contains(kKey));
        QVERIFY(!loggedText().contains(kKey));
        QVERIFY2(loggedText().contains(QString("HTTP %1").arg(status)), "the failure is logged once, where born");
    }

    void missingKeyIsNamed()
    {
        qunsetenv(kKeyEnv);
        FakeServer server({QJsonObject{{"kind", "status"}, {"code", 401}}});
        START(server);
        ProviderConfig c = configFor(server);
        c.apiKeyEnv = QString::fromLatin1(kKeyEnv);
        const Result<ChatReply> r = LlmClient(c).complete(request());
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(QString("no API key was sent: $%1 is not set").arg(kKeyEnv)),
                 qPrintable(r.error().message));
        QVERIFY2(r.error().message.endsWith(": fake status 401"), qPrintable(r.error().message));  // the server's words
        QVERIFY(!server.requests()[0].value("headers").toObject().contains("authorization"));

        // A keychain entry named, yet no key bound from it (bindApiKey not called): the hint names the entry.
        FakeServer again({QJsonObject{{"kind", "status"}, {"code", 401}}});
        START(again);
        c = configFor(again);
        c.apiKeyEnv = QString::fromLatin1(kKeyEnv);
        c.apiKeyKeychain = "team-openai";
        const Result<ChatReply> r2 = LlmClient(c).complete(request());
        QVERIFY(!r2.ok());
        QVERIFY2(r2.error().message.contains(
                     QString("no API key was sent: keychain entry \"team-openai\" gave none and $%1 is not set")
                         .arg(kKeyEnv)),
                 qPrintable(r2.error().message));
    }

    void keySentAsBearerAndNeverStored()
    {
        qputenv(kKeyEnv, kKey.toUtf8());
        FakeServer server({QJsonObject{{"kind", "status"}, {"code", 503}, {"body", "busy for $AUTH"}},
                           reply({"done"}, {{"usage", usage(1, 1)}})});
        START(server);
        ProviderConfig c = configFor(server);
        c.apiKeyEnv = QString::fromLatin1(kKeyEnv);
        QStringList retryErrors;
        const Result<ChatReply> r = LlmClient(c).complete(
            request(), {}, nullptr, [&](int, const Error& e) { retryErrors << e.message << e.detail; });
        qunsetenv(kKeyEnv);
        QVERIFY2(r.ok(), qPrintable(why(r)));
        for (const QJsonObject& sent : server.requests())
            QCOMPARE(sent.value("headers").toObject().value("authorization").toString(), "Bearer " + kKey);
        QCOMPARE(retryErrors.size(), 2);
        QVERIFY2(retryErrors[1].contains("busy for [redacted]"), qPrintable(retryErrors[1]));
        QVERIFY(!retryErrors.join('\n').contains(kKey));
        for (const QString& field : {r->content, r->finishReason, r->model, QString::fromUtf8(r->rawResponse)})
            QVERIFY(!field.contains(kKey));
        QVERIFY(!QJsonDocument(toJson(c)).toJson().contains(kKey.toUtf8()));
        QVERIFY(!loggedText().contains(kKey));
    }

    void unreachableEndpoint()
    {
        ProviderConfig c;
        c.name = "nowhere";
        c.baseUrl = "http://127.0.0.1:1/v1";  // nothing listens on port 1
        c.timeouts = {2, 5, 2};
        c.retries = {2, 10, 20};
        const Result<ChatReply> r = LlmClient(c).complete(request());
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Io);
        QVERIFY2(r.error().message.contains("nowhere (http://127.0.0.1:1/v1/chat/completions)"),
                 qPrintable(r.error().message));
        QVERIFY2(r.error().message.contains("gave up after 2 attempts"), qPrintable(r.error().message));
    }
};

QTEST_GUILESS_MAIN(TestLlmHttp)
#include "test_llm_http.moc"
