#pragma once
// The asynchronous runner of nvidia-smi (GpuDiscovery.h holds its pure parser): start() returns at once, the
// answer comes to a callback on the thread that owns the query, after a timeout at the latest; cancel() stops it
// and drops the answer. Lives on the thread that created it; never blocks it.

#include "verify/GpuDiscovery.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <functional>

class QProcess;

namespace km {

class GpuQuery : public QObject {
    Q_OBJECT
public:
    // The GPUs this process sees (narrowed by CUDA_VISIBLE_DEVICES), and the note of applyCudaVisibleDevices.
    struct Answer {
        Result<QList<GpuDevice>> gpus = QList<GpuDevice>{};
        QString note;
    };
    using Callback = std::function<void(const Answer&)>;

    explicit GpuQuery(QObject* parent = nullptr);
    ~GpuQuery() override;

    // One query at a time: a start() while one runs cancels it (its callback is never called).
    void start(Callback done, int timeoutMs = 20000);
    void cancel();
    bool running() const { return m_process != nullptr; }

private:
    void finish(const Answer& answer);

    QProcess* m_process = nullptr;
    QString m_program;
    QTimer m_timeout;
    Callback m_done;
};

}  // namespace km
