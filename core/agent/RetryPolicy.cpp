#include "agent/RetryPolicy.h"

#include <QLocale>
#include <QTimeZone>
#include <algorithm>
#include <cmath>

namespace km {
namespace {

// The three forms RFC 9110 (section 5.6.7) requires recipients to accept; the zone is always GMT. The weekday is
// dropped before parsing: it is redundant, and Qt would check it against a two-digit year's wrong century.
std::optional<QDateTime> parseHttpDate(const QString& text)
{
    static const char* const formats[] = {
        "dd MMM yyyy HH:mm:ss 'GMT'",  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        "dd-MMM-yy HH:mm:ss 'GMT'",    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        "MMM d HH:mm:ss yyyy",         // asctime: Sun Nov  6 08:49:37 1994 (spaces simplified)
    };
    QString rest = text.simplified();
    const qsizetype space = rest.indexOf(QLatin1Char(' '));
    if (space < 0)
        return std::nullopt;
    rest = rest.mid(space + 1);
    const QLocale c = QLocale::c();
    for (const char* format : formats) {
        QDateTime t = c.toDateTime(rest, QLatin1String(format));
        if (!t.isValid())
            continue;
        t.setTimeZone(QTimeZone::utc());  // same wall time, read as GMT
        if (t.date().year() < 1970)       // a two-digit RFC 850 year read into the 1900s
            t = t.addYears(100);
        return t;
    }
    return std::nullopt;
}

}  // namespace

bool isRetryable(const AttemptFailure& failure)
{
    switch (failure.kind) {
    case FailureKind::Http:
        switch (failure.httpStatus) {
        case 408:
        case 429:
        case 500:
        case 502:
        case 503:
        case 504:
        case 529: return true;
        default: return false;
        }
    case FailureKind::Network:
    case FailureKind::Timeout:
    case FailureKind::Stall:
    case FailureKind::Truncated:
    case FailureKind::Malformed: return true;
    case FailureKind::TooLarge:
    case FailureKind::Setup: return false;
    }
    return false;
}

std::optional<int> parseRetryAfter(const QByteArray& value, const QDateTime& now)
{
    const QByteArray v = value.trimmed();
    if (v.isEmpty())
        return std::nullopt;
    bool isNumber = false;
    const double seconds = v.toDouble(&isNumber);
    if (isNumber) {
        if (!std::isfinite(seconds))
            return std::nullopt;
        return int(std::clamp(seconds * 1000.0, 0.0, double(kMaxRetryAfterMs)));
    }
    const std::optional<QDateTime> at = parseHttpDate(QString::fromLatin1(v));
    if (!at)
        return std::nullopt;
    return int(std::clamp<qint64>(now.msecsTo(*at), 0, kMaxRetryAfterMs));
}

int backoffMs(const RetrySettings& settings, int attempt, double jitter01)
{
    const int exponent = std::clamp(attempt - 1, 0, 30);
    const double cap =
        std::min(double(settings.maxBackoffMs), double(settings.baseBackoffMs) * std::ldexp(1.0, exponent));
    const double j = std::clamp(jitter01, 0.0, 1.0);
    return int(cap / 2 + cap / 2 * j);
}

RetryDecision decideRetry(const RetrySettings& settings, int attempt, const AttemptFailure& failure,
                          const QDateTime& now, double jitter01)
{
    if (attempt >= settings.maxAttempts || !isRetryable(failure))
        return {};
    if (std::optional<int> serverSays = parseRetryAfter(failure.retryAfter, now))
        return {true, *serverSays};
    return {true, backoffMs(settings, attempt, jitter01)};
}

}  // namespace km
