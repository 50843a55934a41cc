#include "services/RunErrorText.h"

#include <QRegularExpression>

namespace km {

QString plainRunError(const QString& message)
{
    if (message.isEmpty())
        return {};
    QString plain;
    if (message.contains(QRegularExpression(QStringLiteral("HTTP 40[13]\\b"))))
        plain = QStringLiteral("The endpoint refused the API key (HTTP 401/403): check the provider's key");
    else if (message.contains(QRegularExpression(QStringLiteral("HTTP 429\\b"))))
        plain = QStringLiteral("The endpoint is rate limiting (HTTP 429): wait, then resume the run");
    else if (message.contains(QRegularExpression(QStringLiteral("HTTP 404\\b"))))
        plain = QStringLiteral("The endpoint has no such path or model (HTTP 404): check the base URL and model");
    else if (message.contains(QRegularExpression(QStringLiteral("HTTP 5\\d\\d\\b"))))
        plain = QStringLiteral("The endpoint failed (HTTP 5xx): try again later");
    else if (message.contains(QRegularExpression(
                 QStringLiteral("Couldn't connect|Could not connect|Connection refused|Could not resolve|"
                                "Failed to connect|couldn't resolve"),
                 QRegularExpression::CaseInsensitiveOption)))
        plain = QStringLiteral("Nothing answers at the endpoint: is the server running, is the base URL right?");
    else if (message.contains(QLatin1String("timed out")) || message.contains(QLatin1String("stalled")))
        plain = QStringLiteral("The endpoint did not answer in time");
    else
        return message;
    return plain + QStringLiteral(" — ") + message;
}

}  // namespace km
