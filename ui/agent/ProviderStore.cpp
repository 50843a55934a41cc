#include "agent/ProviderStore.h"

#include "agent/Keychain.h"

#include <QJsonObject>
#include <QSettings>

namespace km::ui {

namespace {
const QString kGroup = QStringLiteral("agent/providers");
}

ProviderStore::ProviderStore(QSettings& settings) : m_settings(settings) {}

QList<ProviderConfig> ProviderStore::providers() const
{
    QList<ProviderConfig> out;
    m_settings.beginGroup(kGroup);
    const QStringList names = m_settings.childGroups();
    m_settings.endGroup();
    for (const QString& name : names) {
        if (auto p = provider(name))
            out.append(*p);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

std::optional<ProviderConfig> ProviderStore::provider(const QString& name) const
{
    m_settings.beginGroup(kGroup + QLatin1Char('/') + name);
    QJsonObject json;
    for (const QString& key : m_settings.childKeys()) {
        const QVariant v = m_settings.value(key);
        json.insert(key, key == QLatin1String("max_reply_bytes") ? QJsonValue(double(v.toLongLong()))
                                                                 : QJsonValue(v.toString()));
    }
    for (const QString& group : m_settings.childGroups()) {
        m_settings.beginGroup(group);
        QJsonObject inner;
        for (const QString& key : m_settings.childKeys())
            inner.insert(key, m_settings.value(key).toInt());
        m_settings.endGroup();
        json.insert(group, inner);
    }
    m_settings.endGroup();
    if (json.isEmpty())
        return std::nullopt;
    json.remove(QStringLiteral("api_key"));  // never written by us; a hand-edited one is ignored, not used
    json.insert(QStringLiteral("name"), name);
    auto config = providerConfigFromJson(json);
    if (!config)
        return std::nullopt;
    return config.value();
}

Status ProviderStore::save(const ProviderConfig& config)
{
    if (config.name.trimmed().isEmpty() || config.name.contains(QLatin1Char('/')))
        return makeError(ErrorCode::InvalidInput, QStringLiteral("a provider needs a name (without '/')"));
    if (!config.baseUrl.startsWith(QLatin1String("http://")) && !config.baseUrl.startsWith(QLatin1String("https://")))
        return makeError(
            ErrorCode::InvalidInput,
            QStringLiteral("the base URL starts with http:// or https:// (e.g. http://127.0.0.1:8000/v1)"));
    remove(config.name);
    m_settings.beginGroup(kGroup + QLatin1Char('/') + config.name);
    const QJsonObject json = toJson(config);  // never holds the key
    for (auto it = json.begin(); it != json.end(); ++it) {
        if (it.key() == QLatin1String("name") || it.key() == QLatin1String("api_key"))
            continue;
        if (it.value().isObject()) {
            const QJsonObject inner = it.value().toObject();
            for (auto in = inner.begin(); in != inner.end(); ++in)
                m_settings.setValue(it.key() + QLatin1Char('/') + in.key(), in.value().toVariant());
        } else {
            m_settings.setValue(it.key(), it.value().toVariant());
        }
    }
    m_settings.endGroup();
    m_settings.sync();
    if (m_settings.status() != QSettings::NoError)
        return makeError(ErrorCode::Io,
                         QStringLiteral("could not write the settings file %1").arg(m_settings.fileName()));
    return {};
}

void ProviderStore::remove(const QString& name)
{
    if (name.isEmpty())
        return;
    m_settings.remove(kGroup + QLatin1Char('/') + name);
    m_settings.sync();
}

Status ProviderStore::setKey(const QString& name, const QString& key)
{
    auto config = provider(name);
    if (!config)
        return makeError(ErrorCode::NotFound, QStringLiteral("no saved provider named \"%1\"").arg(name));
    if (key.trimmed().isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("the key is empty; nothing stored"));
    const QString entry = keychainEntry(name);
    if (Status s = writeKeychainSecret(entry, key.trimmed()); !s)
        return s;
    config->apiKeyKeychain = entry;
    return save(*config);
}

QString ProviderStore::keychainEntry(const QString& providerName)
{
    return QStringLiteral("provider-") + providerName;
}

}  // namespace km::ui
