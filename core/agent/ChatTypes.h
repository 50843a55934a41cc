#pragma once
// Chat Completions requests and replies as values (OpenAI-compatible wire format), and their JSON conversion.
// Pure data: usable on any thread.

#include "util/Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <optional>

namespace km {

struct ChatMessage {
    QString role;  // "system", "user", "assistant"
    QString content;
    bool operator==(const ChatMessage&) const = default;
};

struct ChatRequest {
    QString model;  // empty: the provider's configured model
    QList<ChatMessage> messages;
    // Sampling parameters; unset ones are not sent, so the server's defaults apply (some models reject them).
    std::optional<double> temperature;
    std::optional<double> topP;
    std::optional<int> maxTokens;
    std::optional<qint64> seed;
    bool stream = true;
    // Provider-specific fields merged into the body last, so they win; a null value removes a field (for example
    // "stream_options": null for a server that rejects it). "stream" itself cannot be overridden.
    QJsonObject extra;
};

struct ChatUsage {
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 totalTokens = 0;
    bool operator==(const ChatUsage&) const = default;
};

struct ChatReply {
    QString content;
    QString finishReason;  // "stop", "length", ...; empty when the server sent none
    std::optional<ChatUsage> usage;
    QString model;         // as the server names it
    qint64 latencyMs = 0;  // the whole call, retries and waits included
    int attempts = 0;
    int httpStatus = 0;
    QByteArray rawResponse;  // the non-streamed body, or the stream's `data:` payloads one per line
};

// The request body. `fallbackModel` is used when request.model is empty.
QJsonObject toJson(const ChatRequest& request, const QString& fallbackModel = {});
// `usage` of a reply or of a stream chunk; nullopt when absent or null.
std::optional<ChatUsage> usageFromJson(const QJsonValue& usage);
// A non-streamed completion body into a reply (content, finish_reason, usage, model; rawResponse is the body).
Result<ChatReply> parseChatCompletion(const QByteArray& body);

}  // namespace km
