#pragma once
// Runs verifications on this machine through one long-lived harness worker (started on first use, restarted when
// it dies). Requests run one at a time in submission order. Lives on the thread that created it.

#include "verify/Executor.h"
#include "verify/HarnessLaunch.h"

#include <QDeadlineTimer>
#include <QList>
#include <QTimer>
#include <memory>

namespace km {

class HarnessWorker;

class LocalExecutor : public Executor {
    Q_OBJECT
public:
    // `scratchRoot`: where the worker keeps its per-verification folders; empty: a temporary folder of its own.
    explicit LocalExecutor(HarnessLaunch launch, QObject* parent = nullptr);
    ~LocalExecutor() override;

    QString name() const override { return QStringLiteral("local"); }
    quint64 submit(const QVariantMap& request) override;
    void cancel(quint64 ticket) override;
    QString workerIsolation() const override { return m_launch.network; }
    // Starts the worker now (it imports torch), so that the first request does not wait for it.
    void warmUp() { ensureWorker(); }

private:
    struct Job {
        quint64 ticket = 0;
        QVariantMap request;
        bool started = false;  // the worker has reported a phase of it
        bool resent = false;   // sent again once, after a worker that died before starting it
    };
    void pump();
    void ensureWorker();
    void onReply(qint64 id, const QVariantMap& reply);
    void onDied(const QString& why);
    void finishCurrent(const QVariantMap& verdict, const QString& error);
    static int deadlineMs(const QVariantMap& request);

    HarnessLaunch m_launch;
    std::unique_ptr<HarnessWorker> m_worker;
    QList<Job> m_queue;
    std::optional<Job> m_current;
    qint64 m_currentId = 0;
    quint64 m_nextTicket = 1;
    QTimer m_deadline;
};

}  // namespace km
