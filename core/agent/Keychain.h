#pragma once
// Secrets in the desktop keychain through QtKeychain (Secret Service via libsecret, KWallet, macOS Keychain,
// Windows Credential Store), stored under the service "KernelMosaic" with the entry's name as key.
// Synchronous: each call runs a local event loop until QtKeychain answers or the timeout passes. Main thread only
// (the CLI's, or the GUI's before it shows a window): QtKeychain's queue and libsecret's callbacks live there.

#include "util/Result.h"

#include <QString>

namespace km {

inline constexpr int kKeychainTimeoutMs = 15000;  // a secret service that hangs must not hang the CLI

// The service name every entry is stored under.
QString keychainService();

// Errors name the entry and carry QtKeychain's own text; none ever contains the secret.
//   NotFound     no such entry
//   Unsupported  no keychain backend on this machine (no secret service, libsecret missing)
//   Io           the keychain failed, denied access, is locked, or did not answer within timeoutMs
//   Internal     called off the main thread or without a QCoreApplication
// After a timeout QtKeychain still holds the unanswered request, and it serialises requests, so every later call
// in the process fails at once with the same Io error.
Result<QString> readKeychainSecret(const QString& entry, int timeoutMs = kKeychainTimeoutMs);
Status writeKeychainSecret(const QString& entry, const QString& secret, int timeoutMs = kKeychainTimeoutMs);
// Deleting an entry that does not exist succeeds with most backends (libsecret): read first to tell.
Status deleteKeychainSecret(const QString& entry, int timeoutMs = kKeychainTimeoutMs);

}  // namespace km
