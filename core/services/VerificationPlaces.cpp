#include "services/VerificationPlaces.h"

#include "util/Json.h"

namespace km {

namespace {
QByteArray keyOf(const ExecutorSettings& s)
{
    return json::write(s.toVariant());
}
}  // namespace

VerificationPlaces::VerificationPlaces(VerificationService& own, const ExecutorSettings& ownSettings,
                                       HarnessLaunch launch, store::Database& db, QString actor, SecretScrubber secrets)
    : m_own(own)
    , m_ownKey(keyOf(ownSettings))
    , m_launch(std::move(launch))
    , m_db(db)
    , m_actor(std::move(actor))
    , m_secrets(std::move(secrets))
{
}

VerificationPlaces::~VerificationPlaces()
{
    for (auto& [key, place] : m_others)
        place.verification.reset();  // before the factory it builds its executor through
}

VerificationService& VerificationPlaces::at(const std::optional<ExecutorSettings>& where)
{
    if (!where)
        return m_own;
    const QByteArray key = keyOf(*where);
    if (key == m_ownKey)
        return m_own;
    auto it = m_others.find(key);
    if (it == m_others.end()) {
        Place place;
        place.factory = std::make_unique<ExecutorFactory>(m_launch);
        place.verification = std::make_unique<VerificationService>(*place.factory, *where, m_db, m_actor, m_secrets);
        it = m_others.emplace(key, std::move(place)).first;
    }
    return *it->second.verification;
}

void VerificationPlaces::cancelAll()
{
    for (auto& [key, place] : m_others)
        place.verification->cancelAll();
}

}  // namespace km
