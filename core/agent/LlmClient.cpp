#include "agent/LlmClient.h"

#include "agent/RetryPolicy.h"
#include "agent/SseParser.h"
#include "util/Logging.h"

#include <QJsonDocument>
#include <QRandomGenerator>
#include <chrono>
#include <curl/curl.h>
#include <mutex>
#include <thread>

namespace km {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPollMs = 100;                                 // how often an idle transfer looks at the cancel flag
constexpr qsizetype kMaxDetailBytes = qsizetype(16) * 1024;  // of an error body kept in Error.detail

void initCurlOnce()
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

qint64 msSince(Clock::time_point t)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// State of one transfer, shared with the curl callbacks; lives on the calling thread's stack.
struct Transfer {
    CURL* easy = nullptr;
    bool stream = false;
    qint64 maxBytes = 0;
    int stallS = 0;
    const LlmClient::DeltaFn* onDelta = nullptr;
    const std::atomic<bool>* cancel = nullptr;

    Clock::time_point lastByte = Clock::now();
    bool bodyStarted = false;
    bool sse = false;  // the body is read as an event stream (decided at its first byte)
    qint64 received = 0;
    QByteArray body;  // the body when it is not an event stream
    SseParser parser;
    StreamFold fold;
    std::optional<Error> streamError;
    QByteArray retryAfter;
    bool tooLarge = false;
    bool stalled = false;
    bool cancelled = false;
};

// Checked by the progress callback and by the poll loop. A non-streamed reply is silent while the model
// generates, so its stall clock starts with the body.
bool shouldAbort(Transfer& t)
{
    if (t.cancel && t.cancel->load()) {
        t.cancelled = true;
        return true;
    }
    if ((t.stream || t.bodyStarted) && Clock::now() - t.lastByte > std::chrono::seconds(t.stallS)) {
        t.stalled = true;
        return true;
    }
    return false;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    return shouldAbort(*static_cast<Transfer*>(user)) ? 1 : 0;
}

size_t onHeader(char* data, size_t size, size_t count, void* user)
{
    Transfer& t = *static_cast<Transfer*>(user);
    const size_t len = size * count;
    t.lastByte = Clock::now();
    const QByteArrayView line(data, qsizetype(len));
    if (line.startsWith("HTTP/"))
        t.retryAfter.clear();  // a new response: after 100 Continue
    else if (len > 12 && qstrnicmp(data, "retry-after:", 12) == 0)
        t.retryAfter = line.sliced(12).trimmed().toByteArray();
    return len;
}

bool foldEvents(Transfer& t, const QList<SseEvent>& events)
{
    for (const SseEvent& e : events) {
        Result<QString> delta = t.fold.add(e);
        if (!delta) {
            t.streamError = delta.error();
            return false;
        }
        if (!delta->isEmpty() && t.onDelta && *t.onDelta)
            (*t.onDelta)(*delta);
    }
    return true;
}

size_t onBody(char* data, size_t size, size_t count, void* user)
{
    Transfer& t = *static_cast<Transfer*>(user);
    const size_t len = size * count;
    t.lastByte = Clock::now();
    if (t.cancel && t.cancel->load()) {
        t.cancelled = true;
        return 0;  // anything but len aborts the transfer
    }
    t.received += qint64(len);
    if (t.received > t.maxBytes) {
        t.tooLarge = true;
        return 0;
    }
    if (!t.bodyStarted) {
        t.bodyStarted = true;
        long status = 0;
        char* type = nullptr;
        curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(t.easy, CURLINFO_CONTENT_TYPE, &type);
        // A server that ignores "stream": true answers with one JSON body; error bodies are never streams.
        const bool json = type && qstrnicmp(type, "application/json", 16) == 0;
        t.sse = t.stream && status >= 200 && status < 300 && !json;
    }
    if (!t.sse) {
        t.body.append(data, qsizetype(len));
        return len;
    }
    return foldEvents(t, t.parser.feed(QByteArrayView(data, qsizetype(len)))) ? len : 0;
}

bool isSetupError(CURLcode rc)
{
    switch (rc) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_NOT_BUILT_IN:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CIPHER:
    case CURLE_FAILED_INIT:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_UNKNOWN_OPTION: return true;
    default: return false;
    }
}

// What one attempt produced: a reply, a failure (with its description), or a cancellation.
struct Attempt {
    std::optional<ChatReply> reply;
    AttemptFailure failure;
    QString message;  // the failure in one line, without the provider's name
    QByteArray detail;
    bool cancelled = false;
};

Attempt failed(FailureKind kind, QString message, QByteArray detail = {})
{
    Attempt a;
    a.failure.kind = kind;
    a.message = std::move(message);
    a.detail = std::move(detail);
    return a;
}

// Drives the easy handle through a private multi handle, so that an idle transfer still sees *cancel within kPollMs.
CURLcode perform(Transfer& t)
{
    CURLM* multi = curl_multi_init();
    if (!multi)
        return CURLE_OUT_OF_MEMORY;
    curl_multi_add_handle(multi, t.easy);
    CURLcode rc = CURLE_OK;
    bool finished = false;
    for (;;) {
        int running = 0;
        if (curl_multi_perform(multi, &running) != CURLM_OK) {
            rc = CURLE_FAILED_INIT;
            break;
        }
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
            if (m->msg == CURLMSG_DONE) {
                rc = m->data.result;
                finished = true;
            }
        }
        if (finished || running == 0 || shouldAbort(t))
            break;
        curl_multi_poll(multi, nullptr, 0, kPollMs, nullptr);
    }
    if (!finished && rc == CURLE_OK)
        rc = CURLE_ABORTED_BY_CALLBACK;
    curl_multi_remove_handle(multi, t.easy);
    curl_multi_cleanup(multi);
    return rc;
}

// The server's own words from an error body, as ": words" for a message: OpenAI's {"error": {"message"}}, vLLM's
// {"message"}, FastAPI's {"detail"}, or the first line of a text body.
QString serverMessage(const QByteArray& body)
{
    constexpr qsizetype kMaxChars = 200;
    QString text;
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (doc.isObject()) {
        const QJsonObject o = doc.object();
        const QJsonValue error = o.value(QStringLiteral("error"));
        text = error.isString() ? error.toString() : error.toObject().value(QStringLiteral("message")).toString();
        if (text.isEmpty())
            text = o.value(QStringLiteral("message")).toString();
        if (text.isEmpty())
            text = o.value(QStringLiteral("detail")).toString();
    } else if (!body.trimmed().startsWith('{') && !body.trimmed().startsWith('<')) {
        text = QString::fromUtf8(body.trimmed().split('\n').value(0));
    }
    text = text.simplified();
    if (text.size() > kMaxChars)
        text = text.left(kMaxChars) + QStringLiteral("...");
    return text.isEmpty() ? QString() : QStringLiteral(": ") + text;
}

Attempt classify(Transfer& t, CURLcode rc, const char* curlMessage, const ProviderConfig& config)
{
    if (t.cancelled || (t.cancel && t.cancel->load())) {
        Attempt a;
        a.cancelled = true;
        return a;
    }
    if (t.tooLarge || rc == CURLE_FILESIZE_EXCEEDED)
        return failed(FailureKind::TooLarge,
                      QStringLiteral("the reply is larger than max_reply_bytes (%1 bytes)").arg(config.maxReplyBytes));
    if (t.streamError)
        return failed(FailureKind::Malformed, t.streamError->message, t.streamError->detail.toUtf8());
    if (t.stalled)
        return failed(FailureKind::Stall,
                      QStringLiteral("no data for %1 s (stall_s); the server stalled").arg(config.timeouts.stallS));
    const QString curlText = QString::fromUtf8(*curlMessage ? curlMessage : curl_easy_strerror(rc));
    if (rc == CURLE_OPERATION_TIMEDOUT)
        return failed(FailureKind::Timeout, QStringLiteral("timed out (connect_s %1, total_s %2): %3")
                                                .arg(config.timeouts.connectS)
                                                .arg(config.timeouts.totalS)
                                                .arg(curlText));
    if (rc != CURLE_OK && !(t.sse && t.fold.complete()))  // a finished stream may lose its last bytes harmlessly
        return failed(isSetupError(rc) ? FailureKind::Setup : FailureKind::Network,
                      t.bodyStarted
                          ? QStringLiteral("the connection broke in the middle of the reply (%1)").arg(curlText)
                          : curlText);
    long status = 0;
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299) {
        Attempt a =
            failed(FailureKind::Http, QStringLiteral("answered HTTP %1").arg(status), t.body.left(kMaxDetailBytes));
        a.failure.httpStatus = int(status);
        a.failure.retryAfter = t.retryAfter;
        return a;
    }
    Attempt a;
    if (t.sse) {
        if (!foldEvents(t, t.parser.finish()))
            return failed(FailureKind::Malformed, t.streamError->message, t.streamError->detail.toUtf8());
        if (!t.fold.complete())
            return failed(FailureKind::Truncated,
                          QStringLiteral("the stream ended without [DONE] and without a finish_reason: truncated"),
                          t.fold.reply().rawResponse.right(kMaxDetailBytes));
        a.reply = t.fold.reply();
    } else {
        Result<ChatReply> r = parseChatCompletion(t.body);
        if (!r)
            return failed(FailureKind::Malformed, r.error().message, r.error().detail.toUtf8());
        a.reply = std::move(r).value();
        if (t.onDelta && *t.onDelta && !a.reply->content.isEmpty())
            (*t.onDelta)(a.reply->content);
    }
    a.reply->httpStatus = int(status);
    return a;
}

Attempt runAttempt(const ProviderConfig& config, const QByteArray& url, const QByteArray& body, bool stream,
                   const std::optional<QString>& key, const LlmClient::DeltaFn& onDelta,
                   const std::atomic<bool>* cancel)
{
    Transfer t;
    t.easy = curl_easy_init();
    if (!t.easy)
        return failed(FailureKind::Setup, QStringLiteral("libcurl could not create a handle"));
    t.stream = stream;
    t.maxBytes = config.maxReplyBytes;
    t.stallS = config.timeouts.stallS;
    t.onDelta = &onDelta;
    t.cancel = cancel;

    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    headers = curl_slist_append(headers, stream ? "Accept: text/event-stream" : "Accept: application/json");
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip for long prompts
    if (key) {
        QByteArray auth = "Authorization: Bearer " + key->toUtf8();
        headers = curl_slist_append(headers, auth.constData());
        auth.fill('\0');
    }
    char curlMessage[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(t.easy, CURLOPT_URL, url.constData());
    curl_easy_setopt(t.easy, CURLOPT_POST, 1L);
    curl_easy_setopt(t.easy, CURLOPT_POSTFIELDS, body.constData());
    curl_easy_setopt(t.easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
    curl_easy_setopt(t.easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(t.easy, CURLOPT_USERAGENT, "kmosaic");
    curl_easy_setopt(t.easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(t.easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(t.easy, CURLOPT_CONNECTTIMEOUT, long(config.timeouts.connectS));
    curl_easy_setopt(t.easy, CURLOPT_TIMEOUT, long(config.timeouts.totalS));
    curl_easy_setopt(t.easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(config.maxReplyBytes));
    curl_easy_setopt(t.easy, CURLOPT_ERRORBUFFER, curlMessage);
    curl_easy_setopt(t.easy, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(t.easy, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(t.easy, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(t.easy, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(t.easy, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(t.easy, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(t.easy, CURLOPT_NOPROGRESS, 0L);

    const CURLcode rc = perform(t);
    Attempt a = classify(t, rc, curlMessage, config);
    curl_easy_cleanup(t.easy);
    curl_slist_free_all(headers);
    return a;
}

QByteArray chatCompletionsUrl(const QString& baseUrl)
{
    QString url = baseUrl.trimmed();
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    if (!url.endsWith(QLatin1String("/chat/completions")))
        url += QLatin1String("/chat/completions");
    return url.toUtf8();
}

ErrorCode errorCodeOf(const AttemptFailure& f)
{
    switch (f.kind) {
    case FailureKind::Http:
        if (f.httpStatus == 404)
            return ErrorCode::NotFound;
        return f.httpStatus >= 400 && f.httpStatus < 500 && f.httpStatus != 408 && f.httpStatus != 429
                   ? ErrorCode::InvalidInput
                   : ErrorCode::Io;
    case FailureKind::TooLarge: return ErrorCode::Unsupported;
    case FailureKind::Setup: return ErrorCode::InvalidInput;
    default: return ErrorCode::Io;
    }
}

// What the user can do about an HTTP status, as " (...)" for a message.
QString hintFor(int status, const ProviderConfig& config, bool hasKey, const QString& model)
{
    if (status == 401 || status == 403) {
        if (!hasKey && !config.apiKeyKeychain.isEmpty())
            return QStringLiteral(" (no API key was sent: keychain entry \"%1\" gave none%2)")
                .arg(config.apiKeyKeychain, config.apiKeyEnv.isEmpty()
                                                ? QString()
                                                : QStringLiteral(" and $%1 is not set").arg(config.apiKeyEnv));
        if (!hasKey)
            return config.apiKeyEnv.isEmpty()
                       ? QStringLiteral(" (no API key was sent: the provider names no api_key_env or "
                                        "api_key_keychain)")
                       : QStringLiteral(" (no API key was sent: $%1 is not set)").arg(config.apiKeyEnv);
        return QStringLiteral(" (the API key was refused)");
    }
    if (status == 404)
        return QStringLiteral(" (check base_url, and whether the server has model \"%1\")").arg(model);
    if (status == 429)
        return QStringLiteral(" (rate limited)");
    return {};
}

bool sleepUnlessCancelled(int ms, const std::atomic<bool>* cancel)
{
    const auto until = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < until) {
        if (cancel && cancel->load())
            return false;
        std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(50), until - Clock::now()));
    }
    return !(cancel && cancel->load());
}

}  // namespace

LlmClient::LlmClient(ProviderConfig config) : m_config(std::move(config)) {}

Result<ChatReply> LlmClient::complete(const ChatRequest& request, const DeltaFn& onDelta,
                                      const std::atomic<bool>* cancel, const RetryFn& onRetry) const
{
    initCurlOnce();
    const Clock::time_point started = Clock::now();
    const std::optional<QString> key = resolveApiKey(m_config);
    const QByteArray url = chatCompletionsUrl(m_config.baseUrl);
    const QJsonObject json = toJson(request, m_config.model);
    const QString model = json.value(QStringLiteral("model")).toString();
    const QByteArray body = QJsonDocument(json).toJson(QJsonDocument::Compact);
    const QString where =
        redactSecret(m_config.name.isEmpty() ? QString::fromUtf8(url)
                                             : QStringLiteral("%1 (%2)").arg(m_config.name, QString::fromUtf8(url)),
                     key);
    const QString cancelled = QStringLiteral("the request to %1 was cancelled").arg(where);

    for (int attempt = 1;; ++attempt) {
        Attempt a = runAttempt(m_config, url, body, request.stream, key, onDelta, cancel);
        if (a.cancelled) {
            qCInfo(lcAgent).noquote() << cancelled;
            return makeError(ErrorCode::Cancelled, cancelled);
        }
        if (a.reply) {
            ChatReply reply = std::move(*a.reply);
            reply.content = redactSecret(reply.content, key);
            reply.rawResponse = redactSecret(reply.rawResponse, key);
            reply.model = redactSecret(reply.model.isEmpty() ? model : reply.model, key);
            reply.attempts = attempt;
            reply.latencyMs = msSince(started);
            qCDebug(lcAgent).noquote() << "completion from" << where << "in" << reply.latencyMs << "ms," << attempt
                                       << "attempt(s)";
            return reply;
        }
        const QString hint =
            a.failure.kind == FailureKind::Http
                ? hintFor(a.failure.httpStatus, m_config, key.has_value(), model) + serverMessage(a.detail)
                : QString();
        Error error = makeError(errorCodeOf(a.failure),
                                redactSecret(QStringLiteral("LLM endpoint %1: %2%3").arg(where, a.message, hint), key),
                                redactSecret(QString::fromUtf8(a.detail), key));
        const RetryDecision next = decideRetry(m_config.retries, attempt, a.failure, QDateTime::currentDateTimeUtc(),
                                               QRandomGenerator::global()->generateDouble());
        if (!next.retry) {
            if (attempt > 1)
                error.message += QStringLiteral(" (gave up after %1 attempts)").arg(attempt);
            qCWarning(lcAgent).noquote() << error.message;
            return error;
        }
        qCInfo(lcAgent).noquote() << error.message
                                  << QStringLiteral("; attempt %1 of %2 in %3 ms")
                                         .arg(attempt + 1)
                                         .arg(m_config.retries.maxAttempts)
                                         .arg(next.delayMs);
        if (onRetry)
            onRetry(attempt + 1, error);
        if (!sleepUnlessCancelled(next.delayMs, cancel)) {
            qCInfo(lcAgent).noquote() << cancelled;
            return makeError(ErrorCode::Cancelled, cancelled);
        }
    }
}

}  // namespace km
