#pragma once
// The saved LLM providers, in QSettings group "agent/providers" (name, base URL, model, timeouts, retries, the name
// of the key's variable and keychain entry), and their keys in the desktop keychain (agent/Keychain.h): never a key
// in the settings. GUI thread (the keychain is asked there, as the command line does).

#include "agent/ProviderConfig.h"

#include <QList>

class QSettings;

namespace km::ui {

class ProviderStore {
public:
    explicit ProviderStore(QSettings& settings);

    QList<ProviderConfig> providers() const;  // by name
    std::optional<ProviderConfig> provider(const QString& name) const;
    // Adds or replaces the provider of config.name. InvalidInput for an empty name or base URL.
    Status save(const ProviderConfig& config);
    void remove(const QString& name);

    // Writes `key` to the keychain entry of `name` (keychainEntry) and names that entry in the saved provider, as
    // `kmosaic agent key set` does; the key itself goes nowhere else.
    Status setKey(const QString& name, const QString& key);
    static QString keychainEntry(const QString& providerName);

private:
    QSettings& m_settings;
};

}  // namespace km::ui
