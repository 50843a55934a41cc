#include "agent/ChatTypes.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace km {

QJsonObject toJson(const ChatRequest& request, const QString& fallbackModel)
{
    QJsonObject body;
    body.insert(QStringLiteral("model"), request.model.isEmpty() ? fallbackModel : request.model);
    QJsonArray messages;
    for (const ChatMessage& m : request.messages)
        messages.append(QJsonObject{{QStringLiteral("role"), m.role}, {QStringLiteral("content"), m.content}});
    body.insert(QStringLiteral("messages"), messages);
    if (request.temperature)
        body.insert(QStringLiteral("temperature"), *request.temperature);
    if (request.topP)
        body.insert(QStringLiteral("top_p"), *request.topP);
    if (request.maxTokens)
        body.insert(QStringLiteral("max_tokens"), *request.maxTokens);
    if (request.seed)
        body.insert(QStringLiteral("seed"), *request.seed);
    body.insert(QStringLiteral("stream"), request.stream);
    if (request.stream)  // the token counts come in a last chunk only when asked for
        body.insert(QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}});
    for (auto it = request.extra.begin(); it != request.extra.end(); ++it) {
        if (it.key() == QLatin1String("stream"))
            continue;
        if (it.value().isNull())
            body.remove(it.key());
        else
            body.insert(it.key(), it.value());
    }
    return body;
}

std::optional<ChatUsage> usageFromJson(const QJsonValue& usage)
{
    if (!usage.isObject())
        return std::nullopt;
    const QJsonObject u = usage.toObject();
    ChatUsage r;
    r.promptTokens = u.value(QStringLiteral("prompt_tokens")).toInteger();
    r.completionTokens = u.value(QStringLiteral("completion_tokens")).toInteger();
    r.totalTokens = u.value(QStringLiteral("total_tokens")).toInteger(r.promptTokens + r.completionTokens);
    return r;
}

Result<ChatReply> parseChatCompletion(const QByteArray& body)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &pe);
    const QString excerpt = QString::fromUtf8(body.left(200));
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return makeError(
            ErrorCode::Io,
            QStringLiteral("the completion is not a JSON object (%1 at byte %2)")
                .arg(pe.error != QJsonParseError::NoError ? pe.errorString() : QStringLiteral("not an object"))
                .arg(pe.offset),
            excerpt);
    const QJsonObject o = doc.object();
    if (o.contains(QStringLiteral("error")))
        return makeError(ErrorCode::Io, QStringLiteral("the server answered with an error object"), excerpt);
    const QJsonArray choices = o.value(QStringLiteral("choices")).toArray();
    if (choices.isEmpty() || !choices.first().isObject())
        return makeError(ErrorCode::Io, QStringLiteral("the completion has no choices[0]"), excerpt);
    const QJsonObject choice = choices.first().toObject();
    const QJsonValue message = choice.value(QStringLiteral("message"));
    if (!message.isObject())
        return makeError(ErrorCode::Io, QStringLiteral("the completion has no choices[0].message"), excerpt);
    ChatReply reply;
    reply.content = message.toObject().value(QStringLiteral("content")).toString();  // null (tool calls): empty
    reply.finishReason = choice.value(QStringLiteral("finish_reason")).toString();
    reply.usage = usageFromJson(o.value(QStringLiteral("usage")));
    reply.model = o.value(QStringLiteral("model")).toString();
    reply.rawResponse = body;
    return reply;
}

}  // namespace km
