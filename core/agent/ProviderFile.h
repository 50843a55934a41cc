#pragma once
// An LLM provider as a file names it (`agent run --provider FILE`) or as a run recorded it (`agent resume`), read on
// the launching thread before any run starts, with its API key resolved once there (agent/ApiKey.h): a bad file or
// a missing key fails before any request.

#include "agent/ReplySource.h"
#include "model/Trajectory.h"
#include "util/SecretScrubber.h"

#include <QVariantMap>
#include <optional>

namespace km {

struct LlmProvider {
    ProviderConfig config;  // keyProvider filled when the key comes from the keychain
    Sampling sampling;
};

// The provider file: ProviderConfig's JSON plus an optional "sampling" object (temperature, top_p, max_tokens,
// seed) that `options` (the command line's) override.
Result<LlmProvider> providerFromFile(const QString& path, const Sampling& options);
// `over`'s sampling values where set, else `base`'s (the command line's or the launch dialog's over a provider's).
Sampling overlaySampling(const Sampling& over, const Sampling& base);
// The provider a run recorded (its settings' "source"), when that source is an LLM; nullopt for a manual source.
Result<std::optional<LlmProvider>> providerFromRecordedSource(const QVariantMap& source);

// What a run command must never store or print: the key the provider resolved (keychain or environment) and the
// value of its $api_key_env (even when the keychain's key won).
SecretScrubber providerSecrets(const ProviderConfig& config);
// For export and import: the values in this environment of the variables that the runs' recorded providers name
// (settings.source.provider.api_key_env). The keychain is not asked.
SecretScrubber recordedProviderSecrets(const QList<BundledRun>& runs);

}  // namespace km
