#include "agent/SseParser.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace km {
namespace {

constexpr qsizetype kExcerptBytes = 300;

QString excerpt(const QByteArray& data)
{
    return QString::fromUtf8(data.left(kExcerptBytes)) +
           (data.size() > kExcerptBytes ? QStringLiteral("...") : QString());
}

QString errorMessageOf(const QJsonValue& error)
{
    if (error.isString())
        return error.toString();
    const QString m = error.toObject().value(QStringLiteral("message")).toString();
    return m.isEmpty() ? QString::fromUtf8(QJsonDocument(error.toObject()).toJson(QJsonDocument::Compact)) : m;
}

}  // namespace

QList<SseEvent> SseParser::feed(QByteArrayView bytes)
{
    QList<SseEvent> out;
    const qsizetype n = bytes.size();
    qsizetype i = 0;
    while (i < n) {
        if (m_afterCr) {
            m_afterCr = false;
            if (bytes[i] == '\n') {  // the LF of a CRLF split across two chunks
                ++i;
                continue;
            }
        }
        qsizetype j = i;
        while (j < n && bytes[j] != '\n' && bytes[j] != '\r')
            ++j;
        if (j == n) {
            m_line.append(bytes.sliced(i));
            break;
        }
        m_afterCr = bytes[j] == '\r';
        if (m_line.isEmpty()) {
            line(bytes.sliced(i, j - i), &out);
        } else {
            m_line.append(bytes.sliced(i, j - i));
            line(m_line, &out);
            m_line.clear();
        }
        i = j + 1;
    }
    return out;
}

QList<SseEvent> SseParser::finish()
{
    QList<SseEvent> out;
    if (m_line.isEmpty())
        dispatch(&out);
    m_line.clear();
    m_data.clear();
    m_type.clear();
    m_hasData = false;
    m_afterCr = false;
    return out;
}

void SseParser::line(QByteArrayView l, QList<SseEvent>* out)
{
    if (!m_started) {
        m_started = true;
        if (l.startsWith("\xEF\xBB\xBF"))
            l = l.sliced(3);
    }
    if (l.isEmpty()) {
        dispatch(out);
        return;
    }
    if (l.front() == ':')
        return;
    const qsizetype colon = l.indexOf(':');
    const QByteArrayView field = colon < 0 ? l : l.first(colon);
    QByteArrayView value = colon < 0 ? QByteArrayView() : l.sliced(colon + 1);
    if (value.startsWith(' '))
        value = value.sliced(1);
    if (field == "data") {
        if (m_hasData)
            m_data.append('\n');
        m_data.append(value);
        m_hasData = true;
    } else if (field == "event") {
        m_type = QString::fromUtf8(value);
    } else if (field == "id") {
        if (!value.contains('\0'))
            m_id = QString::fromUtf8(value);
    }  // "retry" and unknown fields are ignored, as the format says
}

void SseParser::dispatch(QList<SseEvent>* out)
{
    if (m_hasData)
        out->append(SseEvent{m_type, m_data, m_id});
    m_data.clear();
    m_type.clear();
    m_hasData = false;
}

bool isStreamDone(const SseEvent& event)
{
    return event.data.trimmed() == "[DONE]";
}

Result<QString> foldStreamChunk(ChatReply& reply, const QByteArray& data, int index)
{
    if (!reply.rawResponse.isEmpty())
        reply.rawResponse.append('\n');
    reply.rawResponse.append(data);
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return makeError(
            ErrorCode::Io,
            QStringLiteral("stream chunk %1 is not a JSON object (%2 at byte %3)")
                .arg(index)
                .arg(pe.error != QJsonParseError::NoError ? pe.errorString() : QStringLiteral("not an object"))
                .arg(pe.offset),
            excerpt(data));
    const QJsonObject o = doc.object();
    if (o.contains(QStringLiteral("error")))
        return makeError(ErrorCode::Io,
                         QStringLiteral("the server reported an error in stream chunk %1: %2")
                             .arg(index)
                             .arg(errorMessageOf(o.value(QStringLiteral("error")))),
                         excerpt(data));
    if (const QString model = o.value(QStringLiteral("model")).toString(); !model.isEmpty())
        reply.model = model;
    if (std::optional<ChatUsage> usage = usageFromJson(o.value(QStringLiteral("usage"))))
        reply.usage = usage;
    const QJsonValue choices = o.value(QStringLiteral("choices"));
    if (!choices.isUndefined() && !choices.isNull() && !choices.isArray())
        return makeError(ErrorCode::Io, QStringLiteral("stream chunk %1: \"choices\" is not an array").arg(index),
                         excerpt(data));
    const QJsonArray list = choices.toArray();
    if (list.isEmpty())
        return QString();  // the usage chunk, or a keep-alive
    const QJsonObject choice = list.first().toObject();
    const QString delta = choice.value(QStringLiteral("delta")).toObject().value(QStringLiteral("content")).toString();
    reply.content += delta;
    if (const QString finish = choice.value(QStringLiteral("finish_reason")).toString(); !finish.isEmpty())
        reply.finishReason = finish;
    return delta;
}

Result<QString> StreamFold::add(const SseEvent& event)
{
    if (m_done)
        return QString();
    if (isStreamDone(event)) {
        m_done = true;
        m_reply.rawResponse.append(m_reply.rawResponse.isEmpty() ? "[DONE]" : "\n[DONE]");
        return QString();
    }
    if (event.type == QLatin1String("error"))
        return makeError(ErrorCode::Io, QStringLiteral("the server sent an error event in the stream"),
                         excerpt(event.data));
    return foldStreamChunk(m_reply, event.data, m_index++);
}

Result<ChatReply> foldStream(const QList<SseEvent>& events)
{
    StreamFold fold;
    for (const SseEvent& e : events) {
        if (Result<QString> r = fold.add(e); !r)
            return r.error();
    }
    if (!fold.complete())
        return makeError(ErrorCode::Io,
                         QStringLiteral("the stream ended without [DONE] and without a finish_reason: truncated"),
                         excerpt(fold.reply().rawResponse.right(kExcerptBytes)));
    return fold.reply();
}

}  // namespace km
