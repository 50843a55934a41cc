#include "agent/ApiKey.h"

#include "util/Logging.h"

namespace km {

Result<ProviderConfig> bindApiKey(ProviderConfig config, int keychainTimeoutMs)
{
    if (config.apiKeyKeychain.isEmpty())
        return config;
    const QString provider = config.name.isEmpty() ? config.baseUrl : config.name;
    const Result<QString> stored = readKeychainSecret(config.apiKeyKeychain, keychainTimeoutMs);
    const QString key = stored ? stored->trimmed() : QString();
    if (!key.isEmpty()) {
        config.keyProvider = [key] {
            return std::optional<QString>(key);
        };
        return config;
    }
    if (!stored && stored.error().code != ErrorCode::NotFound)
        return makeError(
            stored.error().code,
            QStringLiteral("provider %1: the API key could not be read: %2").arg(provider, stored.error().message),
            stored.error().detail);
    const QString what = stored ? QStringLiteral("is empty") : QStringLiteral("does not exist");
    config.keyProvider = {};
    if (resolveApiKey(config)) {
        qCInfo(lcAgent).noquote() << "provider" << provider << ": keychain entry" << config.apiKeyKeychain << what
                                  << "; the key comes from $" + config.apiKeyEnv;
        return config;
    }
    const QString env = config.apiKeyEnv.isEmpty() ? QStringLiteral("no api_key_env is named")
                                                   : QStringLiteral("$%1 is not set either").arg(config.apiKeyEnv);
    return makeError(ErrorCode::NotFound,
                     QStringLiteral("provider %1: no API key: keychain entry \"%2\" (service %3) %4 and %5; store the "
                                    "key with: kmosaic agent key set %2")
                         .arg(provider, config.apiKeyKeychain, keychainService(), what, env));
}

}  // namespace km
