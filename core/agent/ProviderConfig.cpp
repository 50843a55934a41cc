#include "agent/ProviderConfig.h"

#include <QJsonDocument>
#include <QUrl>

namespace km {
namespace {

constexpr qsizetype kMinRedactedLength = 8;
const QString kRedacted = QStringLiteral("[redacted]");

bool isRedactable(const std::optional<QString>& secret)
{
    return secret && secret->size() >= kMinRedactedLength;
}

// Reads an integer field into *out when present; an error names the field and what it must be.
std::optional<Error> readInt(const QJsonObject& o, const QString& path, const QString& key, int minimum, int* out)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return std::nullopt;
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d != double(qint64(d)) || d < minimum || d > 1e9)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("provider config: %1%2 must be an integer >= %3").arg(path, key).arg(minimum));
    *out = int(d);
    return std::nullopt;
}

std::optional<Error> readString(const QJsonObject& o, const QString& key, QString* out)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return std::nullopt;
    if (!v.isString())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("provider config: %1 must be a string").arg(key));
    *out = v.toString();
    return std::nullopt;
}

std::optional<Error> readObject(const QJsonObject& o, const QString& key, QJsonObject* out)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return std::nullopt;
    if (!v.isObject())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("provider config: %1 must be an object").arg(key));
    *out = v.toObject();
    return std::nullopt;
}

}  // namespace

std::optional<QString> resolveApiKey(const ProviderConfig& config)
{
    if (config.keyProvider) {
        if (std::optional<QString> key = config.keyProvider(); key && !key->isEmpty())
            return key;
    }
    if (config.apiKeyEnv.isEmpty())
        return std::nullopt;
    const QString key = qEnvironmentVariable(qPrintable(config.apiKeyEnv)).trimmed();
    return key.isEmpty() ? std::nullopt : std::optional<QString>(key);
}

QJsonObject toJson(const ProviderConfig& c)
{
    return QJsonObject{
        {QStringLiteral("name"), c.name},
        {QStringLiteral("base_url"), c.baseUrl},
        {QStringLiteral("model"), c.model},
        {QStringLiteral("api_key_env"), c.apiKeyEnv},
        {QStringLiteral("api_key_keychain"), c.apiKeyKeychain},
        {QStringLiteral("timeouts"), QJsonObject{{QStringLiteral("connect_s"), c.timeouts.connectS},
                                                 {QStringLiteral("total_s"), c.timeouts.totalS},
                                                 {QStringLiteral("stall_s"), c.timeouts.stallS}}},
        {QStringLiteral("retries"), QJsonObject{{QStringLiteral("max_attempts"), c.retries.maxAttempts},
                                                {QStringLiteral("base_backoff_ms"), c.retries.baseBackoffMs},
                                                {QStringLiteral("max_backoff_ms"), c.retries.maxBackoffMs}}},
        {QStringLiteral("max_reply_bytes"), c.maxReplyBytes},
    };
}

Result<ProviderConfig> providerConfigFromJson(const QJsonObject& json)
{
    static const QStringList known = {
        QStringLiteral("name"),        QStringLiteral("base_url"),         QStringLiteral("model"),
        QStringLiteral("api_key_env"), QStringLiteral("api_key_keychain"), QStringLiteral("timeouts"),
        QStringLiteral("retries"),     QStringLiteral("max_reply_bytes")};
    if (json.contains(QStringLiteral("api_key")))
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("provider config: \"api_key\" is not read from files; put the key in an "
                                        "environment variable named in \"api_key_env\", or in the keychain "
                                        "(kmosaic agent key set NAME) named in \"api_key_keychain\""));
    for (auto it = json.begin(); it != json.end(); ++it) {
        if (!known.contains(it.key()))
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("provider config: unknown field \"%1\" (known: %2)")
                                 .arg(it.key(), known.join(QStringLiteral(", "))));
    }
    ProviderConfig c;
    QJsonObject timeouts, retries;
    const QString t = QStringLiteral("timeouts."), r = QStringLiteral("retries.");
    // Braced lists evaluate left to right: the objects are read before their fields.
    for (const std::optional<Error>& e : {
             readString(json, QStringLiteral("name"), &c.name),
             readString(json, QStringLiteral("base_url"), &c.baseUrl),
             readString(json, QStringLiteral("model"), &c.model),
             readString(json, QStringLiteral("api_key_env"), &c.apiKeyEnv),
             readString(json, QStringLiteral("api_key_keychain"), &c.apiKeyKeychain),
             readObject(json, QStringLiteral("timeouts"), &timeouts),
             readObject(json, QStringLiteral("retries"), &retries),
             readInt(timeouts, t, QStringLiteral("connect_s"), 1, &c.timeouts.connectS),
             readInt(timeouts, t, QStringLiteral("total_s"), 1, &c.timeouts.totalS),
             readInt(timeouts, t, QStringLiteral("stall_s"), 1, &c.timeouts.stallS),
             readInt(retries, r, QStringLiteral("max_attempts"), 1, &c.retries.maxAttempts),
             readInt(retries, r, QStringLiteral("base_backoff_ms"), 0, &c.retries.baseBackoffMs),
             readInt(retries, r, QStringLiteral("max_backoff_ms"), 0, &c.retries.maxBackoffMs),
         }) {
        if (e)
            return *e;
    }
    if (const QJsonValue m = json.value(QStringLiteral("max_reply_bytes")); !m.isUndefined()) {
        if (!m.isDouble() || m.toDouble() < 1024)
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("provider config: max_reply_bytes must be a number >= 1024"));
        c.maxReplyBytes = qint64(m.toDouble());
    }
    if (c.apiKeyKeychain != c.apiKeyKeychain.trimmed())
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("provider config: api_key_keychain \"%1\" starts or ends with white space")
                             .arg(c.apiKeyKeychain));
    const QUrl url(c.baseUrl, QUrl::StrictMode);
    if (c.baseUrl.isEmpty() || !url.isValid() || url.host().isEmpty() ||
        (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("provider config: base_url \"%1\" is not an http(s) URL such as "
                                        "http://127.0.0.1:8000/v1")
                             .arg(c.baseUrl));
    return c;
}

Result<ProviderConfig> parseProviderConfig(const QByteArray& jsonText)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(jsonText, &pe);
    if (pe.error != QJsonParseError::NoError)
        return makeError(
            ErrorCode::InvalidInput,
            QStringLiteral("provider config: invalid JSON at byte %1: %2").arg(pe.offset).arg(pe.errorString()));
    if (!doc.isObject())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("provider config: expected a JSON object"));
    return providerConfigFromJson(doc.object());
}

QString redactSecret(QString text, const std::optional<QString>& secret)
{
    if (isRedactable(secret))
        text.replace(*secret, kRedacted);
    return text;
}

QByteArray redactSecret(QByteArray text, const std::optional<QString>& secret)
{
    if (isRedactable(secret))
        text.replace(secret->toUtf8(), kRedacted.toUtf8());
    return text;
}

}  // namespace km
