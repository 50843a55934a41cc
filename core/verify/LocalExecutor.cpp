#include "verify/LocalExecutor.h"

#include "util/Logging.h"
#include "verify/HarnessWorker.h"

#include <utility>

namespace km {

LocalExecutor::LocalExecutor(HarnessLaunch launch, QObject* parent) : Executor(parent), m_launch(std::move(launch))
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        // The worker enforces each child's limit itself; this outer limit only fires when the worker is stuck.
        qCWarning(lcVerify) << "harness worker missed its deadline; restarting it";
        m_worker->disconnect(this);
        m_worker->kill();
        m_worker.reset();
        finishCurrent({}, QStringLiteral("the harness worker did not answer within its deadline and was restarted"));
    });
}

LocalExecutor::~LocalExecutor() = default;

quint64 LocalExecutor::submit(const QVariantMap& request)
{
    const quint64 ticket = m_nextTicket++;
    m_queue.append({ticket, request});
    QTimer::singleShot(0, this, &LocalExecutor::pump);
    return ticket;
}

void LocalExecutor::cancel(quint64 ticket)
{
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        if (m_queue[i].ticket == ticket) {
            m_queue.removeAt(i);
            Q_EMIT finished(ticket, {}, QStringLiteral("cancelled"));
            return;
        }
    }
    if (m_current && m_current->ticket == ticket && m_worker) {
        m_worker->disconnect(this);
        m_worker->kill();
        m_worker.reset();
        finishCurrent({}, QStringLiteral("cancelled"));
    }
}

void LocalExecutor::ensureWorker()
{
    if (m_worker && m_worker->isRunning())
        return;
    m_worker = std::make_unique<HarnessWorker>(m_launch);
    connect(m_worker.get(), &HarnessWorker::ready, this, [this](const QVariantMap& hello) {
        if (!hello.value(QStringLiteral("ok")).toBool())
            onDied(QStringLiteral("the harness worker refused hello: ") +
                   hello.value(QStringLiteral("error")).toString());
        else {
            Q_EMIT workerReady(1, 1);
            pump();
        }
    });
    connect(m_worker.get(), &HarnessWorker::reply, this, &LocalExecutor::onReply);
    connect(m_worker.get(), &HarnessWorker::workerEvent, this, [this](qint64 id, const QVariantMap& ev) {
        if (m_current && id == m_currentId) {
            m_current->started = true;
            Q_EMIT phase(m_current->ticket, ev.value(QStringLiteral("phase")).toString());
        }
    });
    connect(m_worker.get(), &HarnessWorker::died, this, &LocalExecutor::onDied);
    m_worker->start();
}

void LocalExecutor::pump()
{
    if (m_current || m_queue.isEmpty())
        return;
    ensureWorker();
    if (!m_worker || !m_worker->isReady())
        return;  // ready() calls pump again; no worker: it failed to start and onDied() failed the queue
    m_current = m_queue.takeFirst();
    QVariantMap req = m_current->request;
    req.insert(QStringLiteral("op"), QStringLiteral("verify"));
    m_currentId = m_worker->send(req);
    m_deadline.start(deadlineMs(req));
}

int LocalExecutor::deadlineMs(const QVariantMap& request)
{
    // Two children (reference, solution), each within the per-child limit, plus the worker's own judging.
    const double childS =
        request.value(QStringLiteral("options")).toMap().value(QStringLiteral("timeout_s"), 300).toDouble();
    return int(qMin(2.0 * childS + 120.0, 86400.0) * 1000.0);
}

void LocalExecutor::onReply(qint64 id, const QVariantMap& reply)
{
    if (!m_current || id != m_currentId)
        return;
    if (!reply.value(QStringLiteral("ok")).toBool()) {
        const QVariantMap err = reply.value(QStringLiteral("error")).toMap();
        finishCurrent({}, QStringLiteral("the harness refused the request: ") +
                              err.value(QStringLiteral("message")).toString());
        return;
    }
    finishCurrent(reply.value(QStringLiteral("verdict")).toMap(), {});
}

void LocalExecutor::onDied(const QString& why)
{
    qCWarning(lcVerify).noquote() << why;
    if (m_worker) {
        m_worker->disconnect(this);
        m_worker.release()->deleteLater();
    }
    if (m_current && !m_current->started && !m_current->resent) {
        // The worker died before it began this request (killed while idle, the request written to a dying
        // process): the request goes to a fresh worker once rather than failing.
        Job job = *std::exchange(m_current, std::nullopt);
        job.resent = true;
        m_deadline.stop();
        m_currentId = 0;
        m_queue.prepend(job);
        QTimer::singleShot(0, this, &LocalExecutor::pump);
    } else if (m_current) {
        finishCurrent({}, why);
    } else {
        // Nothing in flight: the queue waits for a worker that cannot start; fail it rather than spin.
        const auto queued = std::exchange(m_queue, {});
        for (const Job& j : queued)
            Q_EMIT finished(j.ticket, {}, why);
    }
}

void LocalExecutor::finishCurrent(const QVariantMap& verdict, const QString& error)
{
    m_deadline.stop();
    const quint64 ticket = m_current->ticket;
    m_current.reset();
    m_currentId = 0;
    Q_EMIT finished(ticket, verdict, error);
    QTimer::singleShot(0, this, &LocalExecutor::pump);
}

}  // namespace km
