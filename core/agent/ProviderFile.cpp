#include "agent/ProviderFile.h"

#include "agent/ApiKey.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace km {

Result<LlmProvider> providerFromFile(const QString& path, const Sampling& options)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::NotFound, QStringLiteral("provider file %1: %2").arg(path, f.errorString()));
    QJsonParseError pe;
    QJsonObject obj = QJsonDocument::fromJson(f.readAll(), &pe).object();
    if (pe.error != QJsonParseError::NoError)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("provider file %1 is not JSON: %2").arg(path, pe.errorString()));
    const Sampling fromFile = Sampling::fromVariant(obj.take(QStringLiteral("sampling")).toObject().toVariantMap());
    auto config = providerConfigFromJson(obj);
    if (!config)
        return makeError(config.error().code, QStringLiteral("%1: %2").arg(path, config.error().message));
    auto bound = bindApiKey(config.value());
    if (!bound)
        return bound.error();
    return LlmProvider{bound.value(), overlaySampling(options, fromFile)};
}

Sampling overlaySampling(const Sampling& over, const Sampling& base)
{
    Sampling out;
    out.temperature = over.temperature ? over.temperature : base.temperature;
    out.topP = over.topP ? over.topP : base.topP;
    out.maxTokens = over.maxTokens ? over.maxTokens : base.maxTokens;
    out.seed = over.seed ? over.seed : base.seed;
    return out;
}

Result<std::optional<LlmProvider>> providerFromRecordedSource(const QVariantMap& source)
{
    if (source.value(QStringLiteral("kind")).toString() != QLatin1String("llm"))
        return std::optional<LlmProvider>();
    auto config = providerConfigFromJson(QJsonObject::fromVariantMap(source.value(QStringLiteral("provider")).toMap()));
    if (!config)
        return makeError(config.error().code,
                         QStringLiteral("the run's recorded provider: %1").arg(config.error().message));
    auto bound = bindApiKey(config.value());
    if (!bound)
        return bound.error();
    return std::optional<LlmProvider>(
        LlmProvider{bound.value(), Sampling::fromVariant(source.value(QStringLiteral("sampling")).toMap())});
}

SecretScrubber providerSecrets(const ProviderConfig& config)
{
    SecretScrubber secrets;
    if (const std::optional<QString> key = resolveApiKey(config))
        secrets.add(*key);
    if (!config.apiKeyEnv.isEmpty())
        secrets.add(qEnvironmentVariable(config.apiKeyEnv.toLocal8Bit().constData()));
    return secrets;
}

SecretScrubber recordedProviderSecrets(const QList<BundledRun>& runs)
{
    SecretScrubber secrets;
    for (const BundledRun& b : runs) {
        const QVariantMap source = b.run.settings.value(QStringLiteral("source")).toMap();
        const QString env =
            source.value(QStringLiteral("provider")).toMap().value(QStringLiteral("api_key_env")).toString();
        if (!env.isEmpty())
            secrets.add(qEnvironmentVariable(env.toLocal8Bit().constData()));
    }
    return secrets;
}

}  // namespace km
