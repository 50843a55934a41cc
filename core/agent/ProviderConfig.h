#pragma once
// Where an OpenAI-compatible endpoint is and how patiently to talk to it. A value: usable on any thread. The API key
// is never part of it: it is resolved at call time (resolveApiKey) and never written to JSON, logs or errors.

#include "util/Result.h"

#include <QJsonObject>
#include <QString>
#include <functional>
#include <optional>

namespace km {

struct ProviderTimeouts {
    int connectS = 10;
    int totalS = 600;  // one attempt, end to end
    // Longest silence (no byte received) before an attempt is abandoned and retried. Streams: from the request on.
    // Non-streamed replies are silent while the model generates, so there it counts once the reply has begun.
    int stallS = 90;
};

struct RetrySettings {
    int maxAttempts = 4;  // 1: no retry
    int baseBackoffMs = 500;
    int maxBackoffMs = 20000;
};

struct ProviderConfig {
    QString name;       // for messages: "local-vllm", "openai"
    QString baseUrl;    // "http://127.0.0.1:8000/v1"; requests go to {baseUrl}/chat/completions
    QString model;      // default model of requests that name none
    QString apiKeyEnv;  // name of the environment variable holding the key; empty: no key (local servers)
    // Name of the desktop keychain entry holding the key (Keychain.h); asked before apiKeyEnv. It is read once,
    // on the main thread, by bindApiKey (ApiKey.h), which fills keyProvider: never from a request's thread.
    QString apiKeyKeychain;
    ProviderTimeouts timeouts;
    RetrySettings retries;
    qint64 maxReplyBytes = qint64(4) * 1024 * 1024;  // larger replies fail, unretried
    // The key resolved ahead of the requests (bindApiKey). When set it is asked first; nullopt from it falls back
    // to the environment variable. Called on the worker thread of each request: it must not block.
    std::function<std::optional<QString>()> keyProvider;
};

// The key for one request: keyProvider, else $apiKeyEnv; nullopt (send no Authorization) when neither has one.
std::optional<QString> resolveApiKey(const ProviderConfig& config);

// The JSON form (snake_case keys, all fields); never contains the key, which is not part of the struct (the names of
// its variable and keychain entry are).
QJsonObject toJson(const ProviderConfig& config);
// Reads the JSON form; absent fields keep their defaults. A literal "api_key" field is refused (keys belong in the
// environment or a keychain, not in files that get shared); the refusal does not quote it.
Result<ProviderConfig> providerConfigFromJson(const QJsonObject& json);
Result<ProviderConfig> parseProviderConfig(const QByteArray& jsonText);

// `text` with every occurrence of `secret` replaced by "[redacted]". Secrets shorter than 8 characters are
// placeholders local servers accept ("EMPTY", "ollama"); redacting those would garble the text, so they are kept.
QString redactSecret(QString text, const std::optional<QString>& secret);
QByteArray redactSecret(QByteArray text, const std::optional<QString>& secret);

}  // namespace km
