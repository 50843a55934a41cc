#include "agent/ConnectionTest.h"

#include "agent/LlmClient.h"
#include "services/RunErrorText.h"

#include <QPointer>
#include <QThreadPool>

namespace km::ui {

void ConnectionTest::start(ProviderConfig config)
{
    const quint64 generation = ++m_generation;
    m_running = true;
    config.retries.maxAttempts = 1;
    config.timeouts.connectS = qMin(config.timeouts.connectS, 10);
    config.timeouts.totalS = qMin(config.timeouts.totalS, 60);
    config.timeouts.stallS = qMin(config.timeouts.stallS, 30);
    QPointer<ConnectionTest> self(this);
    QThreadPool::globalInstance()->start([self, generation, config = std::move(config)] {
        ChatRequest request;
        request.messages = {{QStringLiteral("user"), QStringLiteral("Reply with the word OK.")}};
        request.maxTokens = 8;
        request.stream = false;
        const Result<ChatReply> reply = LlmClient(config).complete(request);
        bool ok = bool(reply);
        QString message;
        if (ok) {
            message = QStringLiteral("Connected: %1 answered \"%2\" in %3 ms")
                          .arg(reply->model.isEmpty() ? config.model : reply->model, reply->content.trimmed().left(60))
                          .arg(reply->latencyMs);
        } else {
            message = plainRunError(reply.error().message);
        }
        ConnectionTest* receiver = self.data();
        if (!receiver)
            return;  // the dialog closed meanwhile
        // Queued to the receiver: dropped by Qt if it is destroyed before the call runs.
        QMetaObject::invokeMethod(
            receiver,
            [receiver, generation, ok, message] {
                if (generation != receiver->m_generation)
                    return;
                receiver->m_running = false;
                Q_EMIT receiver->finished(ok, message);
            },
            Qt::QueuedConnection);
    });
}

}  // namespace km::ui
