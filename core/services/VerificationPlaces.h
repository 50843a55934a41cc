#pragma once
// Where agent launches verify: the services' own VerificationService (the workbench's warm workers) and one more per
// other place a launch names (this machine's CPU, its GPUs, a pool's socket), each built on first need with an
// executor factory of its own and kept warm for the next launch there until the services stop. Lives on the thread
// of the Database it is given.

#include "services/VerificationService.h"

#include <map>
#include <memory>
#include <optional>

namespace km {

class VerificationPlaces {
public:
    VerificationPlaces(VerificationService& own, const ExecutorSettings& ownSettings, HarnessLaunch launch,
                       store::Database& db, QString actor, SecretScrubber secrets = {});
    ~VerificationPlaces();

    // The service verifying at `where`: the own one for nullopt or for the own settings, else the one for those
    // settings (made now if no launch named them before).
    VerificationService& at(const std::optional<ExecutorSettings>& where);
    int othersMade() const { return int(m_others.size()); }
    void cancelAll();

private:
    struct Place {
        std::unique_ptr<ExecutorFactory> factory;
        std::unique_ptr<VerificationService> verification;
    };
    VerificationService& m_own;
    QByteArray m_ownKey;
    HarnessLaunch m_launch;
    store::Database& m_db;
    QString m_actor;
    SecretScrubber m_secrets;
    std::map<QByteArray, Place> m_others;
};

}  // namespace km
