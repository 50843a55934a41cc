#include "agent/ReplyChannel.h"

#include <QElapsedTimer>

namespace km {

Status ReplyChannel::provide(int stepIndex, const QString& text)
{
    if (text.trimmed().isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("the reply is empty"));
    QMutexLocker lock(&m_mutex);
    if (m_waiting != stepIndex)
        return makeError(ErrorCode::InvalidInput,
                         m_waiting < 0 ? QStringLiteral("no run is waiting for a reply")
                                       : QStringLiteral("the run waits for the reply to step %1, not step %2")
                                             .arg(m_waiting + 1)
                                             .arg(stepIndex + 1));
    m_reply = text;
    m_changed.wakeAll();
    return {};
}

void ReplyChannel::abandon()
{
    QMutexLocker lock(&m_mutex);
    m_abandoned = true;
    m_changed.wakeAll();
}

int ReplyChannel::waitingStep() const
{
    QMutexLocker lock(&m_mutex);
    return m_waiting;
}

Result<SourceReply> ReplyChannel::await(int stepIndex, const QString& prompt, const std::atomic<bool>* cancel)
{
    {
        QMutexLocker lock(&m_mutex);
        if (m_abandoned)
            return makeError(ErrorCode::Cancelled, QStringLiteral("the reply was abandoned"));
        m_waiting = stepIndex;
        m_reply.reset();
    }
    Q_EMIT replyWanted(stepIndex, prompt);  // queued to the channel's thread: this is the run's worker thread
    QElapsedTimer clock;
    clock.start();
    QMutexLocker lock(&m_mutex);
    // Woken by provide() or abandon(); the cancel flag is an atomic set elsewhere, so look at it now and then.
    while (!m_reply && !m_abandoned && !(cancel && cancel->load()))
        m_changed.wait(&m_mutex, 200);
    m_waiting = -1;
    if (m_abandoned)
        return makeError(ErrorCode::Cancelled, QStringLiteral("the reply was abandoned"));
    if (!m_reply)
        return makeError(ErrorCode::Cancelled, QStringLiteral("cancelled while waiting for the reply"));
    SourceReply r;
    r.content = *std::exchange(m_reply, std::nullopt);
    r.latencyMs = clock.elapsed();  // how long the person took
    // As the other manual sources record it: characters, not tokens.
    r.usage = {{QStringLiteral("prompt_chars"), prompt.size()},
               {QStringLiteral("reply_chars"), r.content.size()},
               {QStringLiteral("from"), QStringLiteral("caller")}};
    return r;
}

namespace {
class CallerReplySource final : public ReplySource {
public:
    explicit CallerReplySource(std::shared_ptr<ReplyChannel> channel) : m_channel(std::move(channel)) {}
    QString kind() const override { return QStringLiteral("manual"); }
    QString model() const override { return QStringLiteral("manual"); }
    QVariantMap settings() const override
    {
        return {{QStringLiteral("kind"), QStringLiteral("manual")}, {QStringLiteral("mode"), QStringLiteral("caller")}};
    }
    Result<SourceReply> reply(const QList<ChatMessage>& conversation, int stepIndex, const std::atomic<bool>* cancel,
                              const TextFn&) override
    {
        return m_channel->await(stepIndex, conversation.isEmpty() ? QString() : conversation.last().content, cancel);
    }

private:
    std::shared_ptr<ReplyChannel> m_channel;
};
}  // namespace

std::unique_ptr<ReplySource> makeCallerReplySource(std::shared_ptr<ReplyChannel> channel)
{
    return std::make_unique<CallerReplySource>(std::move(channel));
}

}  // namespace km
