#pragma once
// A reply given by the caller: the manual agent of a front end (the workbench's reply editor). The run's worker
// thread asks for the reply to a prompt (replyWanted, delivered on the channel's thread) and waits until the
// caller provides it, abandons the run, or the run is cancelled. provide() and abandon() may be called from any
// thread; one run at a time uses a channel.

#include "agent/ReplySource.h"

#include <QMutex>
#include <QObject>
#include <QWaitCondition>
#include <memory>

namespace km {

class ReplyChannel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // The reply to the prompt of step `stepIndex` (0-based) has been written: the waiting run goes on with it.
    // Refused (InvalidInput) when no run waits for that step, or the text is empty.
    Status provide(int stepIndex, const QString& text);
    // The caller gives up: the waiting run (and any later one) gets a Cancelled error.
    void abandon();
    // The step a run waits for a reply to; -1 when none waits.
    int waitingStep() const;

    // The worker's side (ReplySource::reply): emits replyWanted, then blocks until provide(), abandon() or *cancel.
    Result<SourceReply> await(int stepIndex, const QString& prompt, const std::atomic<bool>* cancel);

Q_SIGNALS:
    void replyWanted(int stepIndex, const QString& prompt);

private:
    mutable QMutex m_mutex;
    QWaitCondition m_changed;
    int m_waiting = -1;
    std::optional<QString> m_reply;
    bool m_abandoned = false;
};

// The ReplySource over a channel: kind "manual", recorded as {kind: manual, mode: caller}.
std::unique_ptr<ReplySource> makeCallerReplySource(std::shared_ptr<ReplyChannel> channel);

}  // namespace km
