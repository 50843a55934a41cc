#include "verify/GpuHealthCheck.h"

namespace km {

GpuHealthCheck::GpuHealthCheck(const HarnessLaunch& launch, QString device, int timeoutMs, QObject* parent)
    : QObject(parent)
    , m_worker(launch)
    , m_device(std::move(device))
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(timeoutMs);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        finish(false, QStringLiteral("the health check did not answer within %1 s").arg(m_timer.interval() / 1000));
    });
    connect(&m_worker, &HarnessWorker::died, this, [this](const QString& why) { finish(false, why); });
    connect(&m_worker, &HarnessWorker::ready, this, [this](const QVariantMap& hello) {
        if (!hello.value(QStringLiteral("ok")).toBool()) {
            finish(false, QStringLiteral("the harness worker refused hello: ") +
                              hello.value(QStringLiteral("error")).toMap().value(QStringLiteral("message")).toString());
            return;
        }
        m_id = m_worker.send({{QStringLiteral("op"), QStringLiteral("health")}, {QStringLiteral("device"), m_device}});
    });
    connect(&m_worker, &HarnessWorker::reply, this, [this](qint64 id, const QVariantMap& reply) {
        if (id != m_id)
            return;
        const QVariantMap health = reply.value(QStringLiteral("health")).toMap();
        if (!reply.value(QStringLiteral("ok")).toBool() || health.isEmpty()) {
            finish(false, QStringLiteral("the harness has no health check: ") +
                              reply.value(QStringLiteral("error")).toMap().value(QStringLiteral("message")).toString());
            return;
        }
        const bool healthy = health.value(QStringLiteral("healthy")).toBool();
        QString message = health.value(QStringLiteral("message")).toString();
        if (healthy)
            message = QStringLiteral("a %1 kernel ran correctly in %2 s")
                          .arg(health.value(QStringLiteral("device")).toString())
                          .arg(health.value(QStringLiteral("seconds")).toDouble(), 0, 'f', 1);
        finish(healthy, message);
    });
}

void GpuHealthCheck::start()
{
    m_timer.start();
    m_worker.start();
}

void GpuHealthCheck::finish(bool healthy, const QString& message)
{
    if (m_done)
        return;
    m_done = true;
    m_timer.stop();
    m_worker.disconnect(this);
    m_worker.kill();
    Q_EMIT done(healthy, message);
}

}  // namespace km
