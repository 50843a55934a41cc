#pragma once
// When a failed Chat Completions attempt is tried again, and after how long. Pure: time and randomness come in as
// arguments, so every decision is reproducible in a test. Usable on any thread.

#include "agent/ProviderConfig.h"

#include <QByteArray>
#include <QDateTime>
#include <optional>

namespace km {

// Why one attempt failed.
enum class FailureKind {
    Http,       // the server answered with a non-2xx status
    Network,    // could not connect, connection reset or closed mid-reply
    Timeout,    // connect or total timeout
    Stall,      // no byte for stall_s
    Truncated,  // the stream ended cleanly but without [DONE] or finish_reason
    Malformed,  // the reply or a stream chunk is not the JSON it must be
    TooLarge,   // the reply passed max_reply_bytes
    Setup,      // the request cannot work as configured: bad URL, unsupported scheme, TLS verification
};

struct AttemptFailure {
    FailureKind kind = FailureKind::Network;
    int httpStatus = 0;     // Http only
    QByteArray retryAfter;  // the Retry-After header's value, when the server sent one
};

struct RetryDecision {
    bool retry = false;
    int delayMs = 0;
    bool operator==(const RetryDecision&) const = default;
};

// Longest wait a Retry-After header may impose.
constexpr int kMaxRetryAfterMs = 120 * 1000;

// Whether a failure of this kind can go away by itself: 408, 429, 500, 502, 503, 504 and 529 (overloaded), and every
// transport failure; never 400, 401, 403, 404 or another status, a reply too large or a setup error.
bool isRetryable(const AttemptFailure& failure);
// Retry-After as delay in milliseconds from `now`: delta-seconds ("120") or an HTTP-date (IMF-fixdate, RFC 850 or
// asctime form, always GMT), clamped to [0, kMaxRetryAfterMs]. nullopt when empty or unreadable.
std::optional<int> parseRetryAfter(const QByteArray& value, const QDateTime& now);
// Exponential backoff with jitter after attempt `attempt` (1-based): the cap min(max, base * 2^(attempt-1)), of
// which half is fixed and half scaled by `jitter01` in [0, 1).
int backoffMs(const RetrySettings& settings, int attempt, double jitter01);
// After attempt `attempt` (1-based) failed: retry when the failure is retryable and attempts remain. The delay is
// the server's Retry-After when it sent a readable one, else the backoff.
RetryDecision decideRetry(const RetrySettings& settings, int attempt, const AttemptFailure& failure,
                          const QDateTime& now, double jitter01);

}  // namespace km
