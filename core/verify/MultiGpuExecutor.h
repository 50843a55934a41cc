#pragma once
// Runs verifications on this machine with harness workers pinned to GPUs through CUDA_VISIBLE_DEVICES=<uuid>
// (cuda:0 inside the worker): one per GPU, or several sharing each GPU, whose timed runs then take turns through
// the harness's GPU lock (gpulock.py) while the rest of their work overlaps. One queue; a request goes to whichever
// worker is idle; each verdict records the GPU that measured it (evidence.gpu). A verification that may have
// failed because of its GPU leads to a health check of that GPU; a GPU that fails it leaves the rotation with all
// its workers, and the request is retried once on another. Lives on the thread that created it.

#include "verify/Executor.h"
#include "verify/GpuDiscovery.h"
#include "verify/HarnessLaunch.h"

#include <QSet>

#include <memory>
#include <optional>
#include <vector>

namespace km {

class LocalExecutor;
class GpuHealthCheck;

class MultiGpuExecutor : public Executor {
    Q_OBJECT
public:
    struct Worker {
        GpuDevice gpu;
        HarnessLaunch launch;  // pinned to gpu already (pinnedLaunch)
    };
    // `healthDevice`: "cuda", or "cpu" where the workers verify on the CPU (the tests).
    MultiGpuExecutor(const QList<GpuDevice>& gpus, const HarnessLaunch& launch,
                     QString healthDevice = QStringLiteral("cuda"), int workersPerGpu = 1, QObject* parent = nullptr);
    MultiGpuExecutor(QList<Worker> workers, QString healthDevice, QObject* parent = nullptr);
    ~MultiGpuExecutor() override;

    // `launch` with CUDA_VISIBLE_DEVICES set to the GPU's uuid.
    static HarnessLaunch pinnedLaunch(HarnessLaunch launch, const GpuDevice& gpu);
    // Whether a verification's end may be its GPU's fault (and not the solution's): the worker died or did not
    // answer, a SYSTEM_ERROR, or a CUDA error that a broken device also produces.
    static bool mayBeGpuFault(const QVariantMap& harnessVerdict, const QString& error);

    QString name() const override;
    QString workerIsolation() const override;
    int parallelism() const override { return std::max(1, gpusInRotation()); }
    quint64 submit(const QVariantMap& request) override;
    void cancel(quint64 ticket) override;
    void warmUp();  // starts every GPU's worker now (each imports torch)
    void setHealthTimeoutMs(int ms) { m_healthTimeoutMs = ms; }

    QList<GpuDevice> gpus() const;                       // one entry per worker
    int gpusInRotation() const;                          // workers in rotation
    QStringList removals() const { return m_removals; }  // one message per GPU taken out of rotation

Q_SIGNALS:
    void healthChecked(int gpuIndex, bool healthy, const QString& message);
    void gpuRemoved(int gpuIndex, const QString& message);

private:
    struct Job {
        quint64 ticket = 0;
        QVariantMap request;
        bool retried = false;
    };
    enum class State { Active, Checking, Out };
    struct Slot {
        Worker worker;
        std::unique_ptr<LocalExecutor> executor;
        State state = State::Active;
        std::optional<Job> job;
        quint64 inner = 0;
        QVariantMap heldVerdict;  // the outcome that waits for the health check
        QString heldError;
    };
    void makeExecutor(int slot);
    QSet<int> m_ready;  // slots whose worker has said hello at least once
    void schedulePump();
    void pump();
    void onInnerFinished(int slot, quint64 inner, const QVariantMap& verdict, const QString& error);
    void onHealth(int slot, bool healthy, const QString& message);
    void deliver(Slot& s, QVariantMap verdict, QString error, const QVariantMap& health = {});

    std::vector<std::unique_ptr<Slot>> m_slots;
    QList<Job> m_queue;
    QString m_healthDevice;
    QStringList m_removals;
    QSet<QString> m_outGpus;  // uuids of GPUs that failed a health check: none of their workers gets work
    int m_healthTimeoutMs = 180000;
    quint64 m_nextTicket = 1;
    bool m_pumpScheduled = false;
};

}  // namespace km
