// The pure parts of the LLM client: the server-sent-events parser over every chunking, the folding of Chat
// Completions stream chunks, the retry policy (Retry-After in both forms), request JSON, provider config loading
// and the redaction of the API key.
#include "agent/ChatTypes.h"
#include "agent/ProviderConfig.h"
#include "agent/RetryPolicy.h"
#include "agent/SseParser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace km;

namespace {

const char* const kKeyEnv = "KMOSAIC_TEST_LLM_CLIENT_KEY";
const QString kKey = QStringLiteral("sk-unit-test-9f8e7d6c5b4a");

// Events as one comparable text: "type|id|data" per event, data with visible newlines.
QString describe(const QList<SseEvent>& events)
{
    QStringList lines;
    for (const SseEvent& e : events)
        lines << e.type + "|" + e.id + "|" + QString::fromUtf8(e.data).replace("\n", "\\n");
    return lines.join("\n");
}

// The stream fed in pieces of `size` bytes (0: in one piece), then finished.
QList<SseEvent> parseInPieces(const QByteArray& stream, int size)
{
    SseParser p;
    QList<SseEvent> out;
    const qsizetype step = size > 0 ? size : qMax<qsizetype>(1, stream.size());
    for (qsizetype i = 0; i < stream.size(); i += step)
        out += p.feed(QByteArrayView(stream).sliced(i, qMin(step, stream.size() - i)));
    out += p.finish();
    return out;
}

QList<SseEvent> parseSplitAt(const QByteArray& stream, qsizetype at)
{
    SseParser p;
    QList<SseEvent> out = p.feed(QByteArrayView(stream).first(at));
    out += p.feed(QByteArrayView(stream).sliced(at));
    out += p.finish();
    return out;
}

QByteArray chunk(const QString& content, const QString& finish = {})
{
    QJsonObject delta;
    if (!content.isNull())
        delta.insert("content", content);
    QJsonObject choice{{"index", 0}, {"delta", delta}};
    choice.insert("finish_reason", finish.isEmpty() ? QJsonValue() : QJsonValue(finish));
    const QJsonObject o{{"object", "chat.completion.chunk"}, {"model", "m1"}, {"choices", QJsonArray{choice}}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QList<SseEvent> events(const QList<QByteArray>& datas)
{
    QList<SseEvent> out;
    for (const QByteArray& d : datas)
        out.append(SseEvent{{}, d, {}});
    return out;
}

// JSON written with single quotes, for readability (and because moc misreads raw strings that contain "//").
QByteArray q(const char* text)
{
    return QByteArray(text).replace('\'', '"');
}

QDateTime at(const char* iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate);
}

}  // namespace

class TestLlmClient : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sse_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<QString>("expected");
        QTest::newRow("one event") << QByteArray("data: {\"a\":1}\n\n") << "||{\"a\":1}";
        QTest::newRow("two events") << QByteArray("data: one\n\ndata: two\n\n") << "||one\n||two";
        QTest::newRow("CRLF") << QByteArray("data: one\r\n\r\ndata: two\r\n\r\n") << "||one\n||two";
        QTest::newRow("CR only") << QByteArray("data: one\r\rdata: two\r\r") << "||one\n||two";
        QTest::newRow("multi-line data") << QByteArray("data: a\ndata: b\ndata:c\n\n") << "||a\\nb\\nc";
        QTest::newRow("comments") << QByteArray(": keep-alive\ndata: x\n: more\n\n:\n\n") << "||x";
        QTest::newRow("only one space stripped") << QByteArray("data:  two spaces\n\n") << "|| two spaces";
        QTest::newRow("event and id") << QByteArray("event: error\nid: 7\ndata: boom\n\ndata: next\n\n")
                                      << "error|7|boom\n|7|next";
        QTest::newRow("empty data dispatches") << QByteArray("data\n\ndata:\n\n") << "||\n||";
        QTest::newRow("no data, no event") << QByteArray("event: ping\n\nretry: 10\n\n") << "";
        QTest::newRow("BOM") << QByteArray("\xEF\xBB\xBF"
                                           "data: x\n\n")
                             << "||x";
        QTest::newRow("DONE marker") << QByteArray("data: {}\n\ndata: [DONE]\n\n") << "||{}\n||[DONE]";
        QTest::newRow("unicode") << QByteArray("data: \xC3\xA9t\xC3\xA9\n\n")
                                 << QString::fromUtf8("||\xC3\xA9t\xC3\xA9");
        QTest::newRow("last event without blank line") << QByteArray("data: a\n\ndata: b\n") << "||a\n||b";
        QTest::newRow("cut mid-line is dropped") << QByteArray("data: a\n\ndata: b\ndata: cu") << "||a";
    }
    void sse()
    {
        QFETCH(QByteArray, stream);
        QFETCH(QString, expected);
        for (int size : {0, 1, 2, 3, 5, 7, 64})
            QVERIFY2(describe(parseInPieces(stream, size)) == expected, qPrintable(QString("pieces of %1").arg(size)));
        for (qsizetype i = 0; i <= stream.size(); ++i) {
            const QString got = describe(parseSplitAt(stream, i));
            QVERIFY2(got == expected, qPrintable(QString("split at %1: got \"%2\"").arg(i).arg(got)));
        }
    }

    void foldOpenAiStream()
    {
        const QByteArray usage = R"({"object":"chat.completion.chunk","model":"m1","choices":[],)"
                                 R"("usage":{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}})";
        const QByteArray nullContent = R"({"model":"m1","choices":[{"index":0,"delta":{"role":"assistant",)"
                                       R"("content":null},"finish_reason":null}]})";
        const Result<ChatReply> r =
            foldStream(events({nullContent, chunk("Hel"), chunk("lo"), chunk(QString(), "stop"), usage, "[DONE]"}));
        QVERIFY2(r.ok(), r.ok() ? "" : qPrintable(r.error().message));
        QCOMPARE(r->content, QString("Hello"));
        QCOMPARE(r->finishReason, QString("stop"));
        QCOMPARE(r->model, QString("m1"));
        QVERIFY(r->usage.has_value());
        QCOMPARE(*r->usage, (ChatUsage{11, 3, 14}));
        QCOMPARE(r->rawResponse.count('\n'), 5);  // six data payloads, one per line
        QVERIFY(r->rawResponse.endsWith("\n[DONE]"));
    }
    void foldIncrementalDeltas()
    {
        StreamFold fold;
        QStringList deltas;
        for (const QByteArray& d : {chunk("a"), chunk(""), chunk("b"), chunk("c", "length")}) {
            Result<QString> delta = fold.add(SseEvent{{}, d, {}});
            QVERIFY(delta.ok());
            deltas << *delta;
        }
        QCOMPARE(deltas, (QStringList{"a", "", "b", "c"}));
        QVERIFY(fold.complete());
        QVERIFY(!fold.done());
        QVERIFY(fold.add(SseEvent{{}, "[DONE]", {}}).ok());
        QVERIFY(fold.done());
        QVERIFY(fold.add(SseEvent{{}, "not json, but after [DONE]", {}}).ok());
        QCOMPARE(fold.reply().content, QString("abc"));
        QCOMPARE(fold.reply().finishReason, QString("length"));
        QVERIFY(!fold.reply().usage.has_value());
    }
    void foldFinishWithoutDoneIsComplete()  // llama.cpp server before it sent [DONE]
    {
        const Result<ChatReply> r = foldStream(events({chunk("x"), chunk("y", "stop")}));
        QVERIFY(r.ok());
        QCOMPARE(r->content, QString("xy"));
    }
    void foldErrors_data()
    {
        QTest::addColumn<QList<QByteArray>>("datas");
        QTest::addColumn<QString>("message");
        QTest::newRow("malformed chunk") << QList<QByteArray>{chunk("a"), "{\"choices\": [", "[DONE]"}
                                         << "stream chunk 1 is not a JSON object";
        QTest::newRow("not an object") << QList<QByteArray>{"[1,2]"} << "stream chunk 0 is not a JSON object";
        QTest::newRow("choices not an array")
            << QList<QByteArray>{R"({"choices": 3})"} << "stream chunk 0: \"choices\" is not an array";
        QTest::newRow("error object") << QList<QByteArray>{chunk("a"), R"({"error":{"message":"overloaded"}})"}
                                      << "error in stream chunk 1: overloaded";
        QTest::newRow("truncated") << QList<QByteArray>{chunk("a"), chunk("b")} << "truncated";
        QTest::newRow("empty stream") << QList<QByteArray>{} << "truncated";
    }
    void foldErrors()
    {
        QFETCH(QList<QByteArray>, datas);
        QFETCH(QString, message);
        const Result<ChatReply> r = foldStream(events(datas));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Io);
        QVERIFY2(r.error().message.contains(message), qPrintable(r.error().message));
    }
    void foldErrorEvent()
    {
        const Result<ChatReply> r = foldStream({SseEvent{"error", R"({"message":"x"})", {}}});
        QVERIFY(!r.ok());
        QVERIFY(r.error().detail.contains("\"message\""));
    }

    void parseCompletion()
    {
        const QByteArray body = R"({"model":"m2","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},)"
                                R"("finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":1}})";
        const Result<ChatReply> r = parseChatCompletion(body);
        QVERIFY(r.ok());
        QCOMPARE(r->content, QString("Hi"));
        QCOMPARE(r->finishReason, QString("stop"));
        QCOMPARE(r->model, QString("m2"));
        QCOMPARE(*r->usage, (ChatUsage{4, 1, 5}));  // total derived when the server omits it
        QCOMPARE(r->rawResponse, body);
        for (const QByteArray& bad : {QByteArray("{\"choices\": [{\"message\": {\"content\": \"cut"),
                                      QByteArray(R"({"choices":[]})"), QByteArray(R"({"error":{"message":"x"}})")}) {
            const Result<ChatReply> e = parseChatCompletion(bad);
            QVERIFY2(!e.ok(), bad.constData());
            QCOMPARE(e.error().code, ErrorCode::Io);
            QVERIFY(!e.error().detail.isEmpty());
        }
    }

    void requestJson()
    {
        ChatRequest req;
        req.messages = {{"system", "Be brief."}, {"user", "Hi"}};
        QJsonObject o = toJson(req, "fallback-model");
        QCOMPARE(o.value("model").toString(), QString("fallback-model"));
        QCOMPARE(o.value("messages").toArray().size(), 2);
        QCOMPARE(o.value("messages").toArray().at(1).toObject().value("content").toString(), QString("Hi"));
        QVERIFY(o.value("stream").toBool());
        QVERIFY(o.value("stream_options").toObject().value("include_usage").toBool());
        for (const char* unset : {"temperature", "top_p", "max_tokens", "seed"})
            QVERIFY2(!o.contains(unset), unset);

        req.model = "m";
        req.temperature = 0.2;
        req.topP = 0.9;
        req.maxTokens = 512;
        req.seed = 42;
        req.stream = false;
        req.extra = QJsonObject{{"max_completion_tokens", 100}, {"top_p", QJsonValue()}, {"stream", true}};
        o = toJson(req, "fallback-model");
        QCOMPARE(o.value("model").toString(), QString("m"));
        QCOMPARE(o.value("temperature").toDouble(), 0.2);
        QCOMPARE(o.value("max_tokens").toInt(), 512);
        QCOMPARE(o.value("seed").toInteger(), 42);
        QCOMPARE(o.value("max_completion_tokens").toInt(), 100);
        QVERIFY2(!o.contains("top_p"), "a null in extra removes the field");
        QVERIFY2(!o.value("stream").toBool(), "extra cannot turn streaming on behind the client's back");
        QVERIFY(!o.contains("stream_options"));
    }

    void retryDecisions_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("status");
        QTest::addColumn<bool>("retry");
        const int http = int(FailureKind::Http);
        for (int s : {429, 500, 502, 503, 504, 408})
            QTest::addRow("HTTP %d", s) << http << s << true;
        for (int s : {400, 401, 403, 404, 422, 501})
            QTest::addRow("HTTP %d", s) << http << s << false;
        QTest::newRow("network") << int(FailureKind::Network) << 0 << true;
        QTest::newRow("timeout") << int(FailureKind::Timeout) << 0 << true;
        QTest::newRow("stall") << int(FailureKind::Stall) << 0 << true;
        QTest::newRow("truncated") << int(FailureKind::Truncated) << 0 << true;
        QTest::newRow("malformed") << int(FailureKind::Malformed) << 0 << true;
        QTest::newRow("too large") << int(FailureKind::TooLarge) << 0 << false;
        QTest::newRow("setup") << int(FailureKind::Setup) << 0 << false;
    }
    void retryDecisions()
    {
        QFETCH(int, kind);
        QFETCH(int, status);
        QFETCH(bool, retry);
        const RetrySettings s{3, 100, 1000};
        const AttemptFailure f{FailureKind(kind), status, {}};
        const QDateTime now = at("2024-05-01T12:00:00Z");
        const RetryDecision first = decideRetry(s, 1, f, now, 0.5);
        QCOMPARE(first.retry, retry);
        if (retry)
            QCOMPARE(first.delayMs, 75);  // cap 100: 50 fixed + 50 * 0.5
        QVERIFY2(!decideRetry(s, 3, f, now, 0.5).retry, "never past max_attempts");
    }
    void backoff()
    {
        const RetrySettings s{10, 100, 1000};
        QCOMPARE(backoffMs(s, 1, 0.0), 50);
        QCOMPARE(backoffMs(s, 2, 0.0), 100);
        QCOMPARE(backoffMs(s, 3, 1.0), 400);
        QCOMPARE(backoffMs(s, 4, 0.999), 799);
        QCOMPARE(backoffMs(s, 9, 1.0), 1000);  // capped by max_backoff_ms
        QCOMPARE(backoffMs(s, 1000, 1.0), 1000);
        QVERIFY(backoffMs(s, 5, 0.3) != backoffMs(s, 5, 0.7));  // jitter spreads clients apart
    }
    void retryAfter_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<int>("expectedMs");  // -1: unreadable, the backoff applies
        QTest::newRow("seconds") << QByteArray("1") << 1000;
        QTest::newRow("seconds, spaces") << QByteArray(" 7 ") << 7000;
        QTest::newRow("zero") << QByteArray("0") << 0;
        QTest::newRow("capped") << QByteArray("86400") << kMaxRetryAfterMs;
        QTest::newRow("negative") << QByteArray("-5") << 0;
        QTest::newRow("IMF-fixdate") << QByteArray("Wed, 01 May 2024 12:00:30 GMT") << 30000;
        QTest::newRow("RFC 850") << QByteArray("Wednesday, 01-May-24 12:00:45 GMT") << 45000;
        QTest::newRow("asctime") << QByteArray("Wed May  1 12:01:00 2024") << 60000;
        QTest::newRow("date in the past") << QByteArray("Tue, 30 Apr 2024 12:00:00 GMT") << 0;
        QTest::newRow("date far ahead") << QByteArray("Thu, 02 May 2024 12:00:00 GMT") << kMaxRetryAfterMs;
        QTest::newRow("garbage") << QByteArray("soon") << -1;
        QTest::newRow("empty") << QByteArray() << -1;
    }
    void retryAfter()
    {
        QFETCH(QByteArray, header);
        QFETCH(int, expectedMs);
        const QDateTime now = at("2024-05-01T12:00:00Z");
        const std::optional<int> ms = parseRetryAfter(header, now);
        QCOMPARE(ms.value_or(-1), expectedMs);
        const RetryDecision d = decideRetry(RetrySettings{3, 100, 1000}, 1, {FailureKind::Http, 429, header}, now, 0.0);
        QVERIFY(d.retry);
        QCOMPARE(d.delayMs, expectedMs >= 0 ? expectedMs : 50);
    }

    void configLoading()
    {
        const QByteArray text = q("{'name': 'local-vllm', 'base_url': 'http://127.0.0.1:8000/v1', 'model': 'qwen',"
                                  " 'api_key_env': 'VLLM_KEY', 'api_key_keychain': 'vllm key',"
                                  " 'timeouts': {'connect_s': 3, 'total_s': 300,"
                                  " 'stall_s': 20}, 'retries': {'max_attempts': 5, 'base_backoff_ms': 250,"
                                  " 'max_backoff_ms': 8000}, 'max_reply_bytes': 1048576}");
        const Result<ProviderConfig> c = parseProviderConfig(text);
        QVERIFY2(c.ok(), c.ok() ? "" : qPrintable(c.error().message));
        QCOMPARE(c->name, QString("local-vllm"));
        QCOMPARE(c->baseUrl, QString("http://127.0.0.1:8000/v1"));
        QCOMPARE(c->model, QString("qwen"));
        QCOMPARE(c->apiKeyEnv, QString("VLLM_KEY"));
        QCOMPARE(c->apiKeyKeychain, QString("vllm key"));
        QCOMPARE(toJson(*c).value("api_key_keychain").toString(), QString("vllm key"));
        QCOMPARE(c->timeouts.connectS, 3);
        QCOMPARE(c->timeouts.totalS, 300);
        QCOMPARE(c->timeouts.stallS, 20);
        QCOMPARE(c->retries.maxAttempts, 5);
        QCOMPARE(c->retries.baseBackoffMs, 250);
        QCOMPARE(c->retries.maxBackoffMs, 8000);
        QCOMPARE(c->maxReplyBytes, qint64(1048576));
        const Result<ProviderConfig> again = providerConfigFromJson(toJson(*c));  // the JSON form round-trips
        QVERIFY(again.ok());
        QCOMPARE(toJson(*again), toJson(*c));

        const Result<ProviderConfig> minimal = parseProviderConfig(q("{'base_url': 'https://api.example.com/v1'}"));
        QVERIFY(minimal.ok());
        QCOMPARE(minimal->timeouts.stallS, ProviderTimeouts{}.stallS);
        QCOMPARE(minimal->retries.maxAttempts, RetrySettings{}.maxAttempts);
        QCOMPARE(minimal->maxReplyBytes, qint64(4 * 1024 * 1024));
        QVERIFY(minimal->apiKeyKeychain.isEmpty());  // no keychain entry: the environment variable alone
    }
    void configErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("not JSON") << QByteArray("{") << "invalid JSON";
        QTest::newRow("not an object") << QByteArray("[]") << "expected a JSON object";
        QTest::newRow("no base_url") << QByteArray(R"({"model": "m"})") << "base_url";
        QTest::newRow("bad scheme") << q("{'base_url': 'ftp://x/v1'}") << "not an http(s) URL";
        QTest::newRow("unknown field") << q("{'base_url': 'http://x/v1', 'modle': 'm'}") << "unknown field \"modle\"";
        QTest::newRow("wrong type") << q("{'base_url': 'http://x/v1', 'model': 3}") << "model must be a string";
        QTest::newRow("zero attempts") << q("{'base_url': 'http://x/v1', 'retries': {'max_attempts': 0}}")
                                       << "retries.max_attempts must be an integer >= 1";
        QTest::newRow("fraction") << q("{'base_url': 'http://x/v1', 'timeouts': {'stall_s': 1.5}}")
                                  << "timeouts.stall_s must be an integer";
        QTest::newRow("literal key") << q("{'base_url': 'http://x/v1', 'api_key': 'sk-literal-0123456789'}")
                                     << "api_key_env";
        QTest::newRow("literal key, keychain named")
            << q("{'base_url': 'http://x/v1', 'api_key_keychain': 'k', 'api_key': 'sk-literal-0123456789'}")
            << "kmosaic agent key set";
        QTest::newRow("keychain entry not a string")
            << q("{'base_url': 'http://x/v1', 'api_key_keychain': 7}") << "api_key_keychain must be a string";
        QTest::newRow("keychain entry padded") << q("{'base_url': 'http://x/v1', 'api_key_keychain': 'openai '}")
                                               << "api_key_keychain \"openai \" starts or ends with white space";
    }
    void configErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        const Result<ProviderConfig> c = parseProviderConfig(text);
        QVERIFY(!c.ok());
        QCOMPARE(c.error().code, ErrorCode::InvalidInput);
        QVERIFY2(c.error().message.contains(message), qPrintable(c.error().message));
        QVERIFY2(!c.error().message.contains("sk-literal") && !c.error().detail.contains("sk-literal"),
                 "a key written into a config file is not echoed back");
    }

    void keyResolutionAndRedaction()
    {
        qputenv(kKeyEnv, kKey.toUtf8());
        ProviderConfig c;
        c.name = "hosted";
        c.baseUrl = "https://api.example.com/v1";
        c.apiKeyEnv = QString::fromLatin1(kKeyEnv);
        QCOMPARE(resolveApiKey(c).value_or(QString()), kKey);
        const QByteArray serialized = QJsonDocument(toJson(c)).toJson();
        QVERIFY2(!serialized.contains(kKey.toUtf8()), serialized.constData());
        QVERIFY(serialized.contains(kKeyEnv));  // the variable's name, not its value

        c.keyProvider = [] {
            return std::optional<QString>(QStringLiteral("sk-from-keychain-000111"));
        };
        QCOMPARE(resolveApiKey(c).value_or(QString()), QString("sk-from-keychain-000111"));
        c.keyProvider = [] {
            return std::optional<QString>();
        };  // the keychain has none: the environment
        QCOMPARE(resolveApiKey(c).value_or(QString()), kKey);
        QVERIFY(!QJsonDocument(toJson(c)).toJson().contains(kKey.toUtf8()));

        qunsetenv(kKeyEnv);
        QVERIFY(!resolveApiKey(c).has_value());
        c.apiKeyEnv.clear();
        QVERIFY(!resolveApiKey(c).has_value());

        const QString echoed = "Incorrect API key provided: " + kKey + " (" + kKey + ")";
        QCOMPARE(redactSecret(echoed, kKey), QString("Incorrect API key provided: [redacted] ([redacted])"));
        QCOMPARE(redactSecret(echoed.toUtf8(), kKey),
                 QByteArray("Incorrect API key provided: [redacted] ([redacted])"));
        QCOMPARE(redactSecret(QString("ollama says hello"), QString("ollama")), QString("ollama says hello"));
        QCOMPARE(redactSecret(echoed, std::nullopt), echoed);
    }
};

QTEST_GUILESS_MAIN(TestLlmClient)
#include "test_llm_client.moc"
