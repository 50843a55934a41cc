#pragma once
// Resolves a provider's API key once, before any request: from the keychain entry api_key_keychain when named,
// else from $api_key_env. Main thread only (it may read the keychain, Keychain.h).

#include "agent/Keychain.h"
#include "agent/ProviderConfig.h"

namespace km {

// `config` with its keyProvider returning the key read from the keychain, so that request threads never touch
// D-Bus; `config` unchanged when it names no keychain entry ($api_key_env is then read per request, as before).
// With a keychain entry named:
//   the entry holds a key              that key (it wins over $api_key_env)
//   no entry, $api_key_env set         the variable's key (the entry is optional when a variable stands behind it)
//   no entry, no variable set          NotFound, naming the entry, the variable and `kmosaic agent key set`
//   keychain unavailable, locked, hung the keychain's error, even if $api_key_env is set: the entry was asked for,
//                                      and a silently different key would hide the broken keychain
// Errors never contain a key.
Result<ProviderConfig> bindApiKey(ProviderConfig config, int keychainTimeoutMs = kKeychainTimeoutMs);

}  // namespace km
