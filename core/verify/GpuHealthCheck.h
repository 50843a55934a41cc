#pragma once
// Whether one GPU still computes: a fresh harness worker pinned to it answers hello, then op "health" (a child that
// initialises CUDA on the GPU and checks one small kernel). Reports done() once. Lives on the thread that created it.

#include "verify/HarnessLaunch.h"
#include "verify/HarnessWorker.h"

#include <QTimer>

namespace km {

class GpuHealthCheck : public QObject {
    Q_OBJECT
public:
    // `device`: what the check runs on, "cuda" (or "cpu" where the workers run on the CPU, as in the tests).
    GpuHealthCheck(const HarnessLaunch& launch, QString device, int timeoutMs, QObject* parent = nullptr);
    void start();

Q_SIGNALS:
    void done(bool healthy, const QString& message);

private:
    void finish(bool healthy, const QString& message);

    HarnessWorker m_worker;
    QString m_device;
    QTimer m_timer;
    qint64 m_id = 0;
    bool m_done = false;
};

}  // namespace km
