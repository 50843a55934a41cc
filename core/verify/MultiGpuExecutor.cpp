#include "verify/MultiGpuExecutor.h"

#include "util/Logging.h"
#include "verify/GpuHealthCheck.h"
#include "verify/LocalExecutor.h"

#include <QTimer>

namespace km {

namespace {
const QString kCancelled = QStringLiteral("cancelled");

// CUDA errors that a faulty or lost device produces as well as a faulty kernel: worth a health check.
bool mentionsDeviceFault(const QString& text)
{
    static const char* const markers[] = {"unspecified launch failure",
                                          "device-side assert",
                                          "illegal memory access",
                                          "illegal instruction",
                                          "illegal address",
                                          "misaligned address",
                                          "uncorrectable ecc",
                                          "fallen off the bus",
                                          "cuda error: unknown error",
                                          "no cuda-capable device",
                                          "busy or unavailable",
                                          "launch timed out",
                                          "cudaerrorlaunchfailure",
                                          "nvml"};
    const QString lower = text.toLower();
    return std::any_of(std::begin(markers), std::end(markers),
                       [&](const char* m) { return lower.contains(QLatin1String(m)); });
}
}  // namespace

MultiGpuExecutor::MultiGpuExecutor(const QList<GpuDevice>& gpus, const HarnessLaunch& launch, QString healthDevice,
                                   int workersPerGpu, QObject* parent)
    : MultiGpuExecutor(
          [&] {
              QList<Worker> workers;
              for (int round = 0; round < std::max(1, workersPerGpu); ++round) {  // GPUs first, then their seconds
                  for (const GpuDevice& g : gpus)
                      workers.append({g, pinnedLaunch(launch, g)});
              }
              return workers;
          }(),
          std::move(healthDevice), parent)
{
}

MultiGpuExecutor::MultiGpuExecutor(QList<Worker> workers, QString healthDevice, QObject* parent)
    : Executor(parent)
    , m_healthDevice(std::move(healthDevice))
{
    for (Worker& w : workers) {
        auto slot = std::make_unique<Slot>();
        slot->worker = std::move(w);
        m_slots.push_back(std::move(slot));
        makeExecutor(int(m_slots.size()) - 1);
    }
}

MultiGpuExecutor::~MultiGpuExecutor() = default;

HarnessLaunch MultiGpuExecutor::pinnedLaunch(HarnessLaunch launch, const GpuDevice& gpu)
{
    launch.environment.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), gpu.uuid);
    return launch;
}

bool MultiGpuExecutor::mayBeGpuFault(const QVariantMap& harnessVerdict, const QString& error)
{
    if (!error.isEmpty())  // the worker died, did not start or did not answer; a refused request is our own fault
        return error != kCancelled && !error.startsWith(QLatin1String("the harness refused the request"));
    if (harnessVerdict.value(QStringLiteral("status")).toString() == QLatin1String("SYSTEM_ERROR"))
        return true;
    const QVariantMap err = harnessVerdict.value(QStringLiteral("error")).toMap();
    const QVariantMap failure = harnessVerdict.value(QStringLiteral("failure")).toMap();
    return mentionsDeviceFault(err.value(QStringLiteral("message")).toString()) ||
           mentionsDeviceFault(err.value(QStringLiteral("traceback")).toString()) ||
           mentionsDeviceFault(failure.value(QStringLiteral("message")).toString());
}

void MultiGpuExecutor::makeExecutor(int i)
{
    Slot& s = *m_slots[size_t(i)];
    s.executor = std::make_unique<LocalExecutor>(s.worker.launch);
    connect(s.executor.get(), &Executor::finished, this,
            [this, i](quint64 t, const QVariantMap& v, const QString& e) { onInnerFinished(i, t, v, e); });
    connect(s.executor.get(), &Executor::workerReady, this, [this, i] {
        m_ready.insert(i);
        Q_EMIT workerReady(int(m_ready.size()), int(m_slots.size()));
    });
    connect(s.executor.get(), &Executor::phase, this, [this, i](quint64 t, const QString& phase) {
        const Slot& slot = *m_slots[size_t(i)];
        if (slot.job && slot.inner == t && slot.state == State::Active)
            Q_EMIT this->phase(slot.job->ticket, phase);
    });
}

QString MultiGpuExecutor::name() const
{
    QSet<QString> uuids;
    for (const auto& s : m_slots)
        uuids.insert(s->worker.gpu.uuid);
    const QString gpus = uuids.size() == 1 ? QStringLiteral("1 GPU") : QStringLiteral("%1 GPUs").arg(uuids.size());
    return qsizetype(m_slots.size()) == uuids.size()
               ? QStringLiteral("local (%1)").arg(gpus)
               : QStringLiteral("local (%1, %2 workers)").arg(gpus).arg(m_slots.size());
}

QString MultiGpuExecutor::workerIsolation() const
{
    return m_slots.empty() ? QString() : m_slots.front()->worker.launch.network;
}

QList<GpuDevice> MultiGpuExecutor::gpus() const
{
    QList<GpuDevice> out;
    for (const auto& s : m_slots)
        out.append(s->worker.gpu);
    return out;
}

int MultiGpuExecutor::gpusInRotation() const
{
    return int(std::count_if(m_slots.cbegin(), m_slots.cend(), [](const auto& s) { return s->state != State::Out; }));
}

void MultiGpuExecutor::warmUp()
{
    for (const auto& s : m_slots) {
        if (s->state == State::Active)
            s->executor->warmUp();
    }
}

quint64 MultiGpuExecutor::submit(const QVariantMap& request)
{
    const quint64 ticket = m_nextTicket++;
    m_queue.append({ticket, request, false});
    schedulePump();
    return ticket;
}

void MultiGpuExecutor::cancel(quint64 ticket)
{
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        if (m_queue[i].ticket == ticket) {
            m_queue.removeAt(i);
            Q_EMIT finished(ticket, {}, kCancelled);
            return;
        }
    }
    for (const auto& s : m_slots) {
        if (!s->job || s->job->ticket != ticket)
            continue;
        if (s->state == State::Active) {
            s->executor->cancel(s->inner);  // finished() of the inner executor reports it
        } else {
            s->job.reset();  // its GPU is being checked: the check goes on, the request is over
            Q_EMIT finished(ticket, {}, kCancelled);
        }
        return;
    }
}

void MultiGpuExecutor::schedulePump()
{
    if (m_pumpScheduled)
        return;
    m_pumpScheduled = true;
    QTimer::singleShot(0, this, &MultiGpuExecutor::pump);
}

void MultiGpuExecutor::pump()
{
    m_pumpScheduled = false;
    for (const auto& s : m_slots) {
        if (m_queue.isEmpty())
            break;
        if (s->state == State::Active && !s->job && m_outGpus.contains(s->worker.gpu.uuid))
            s->state = State::Out;  // another worker of this GPU failed its health check
        if (s->state != State::Active || s->job)
            continue;
        s->job = m_queue.takeFirst();
        s->inner = s->executor->submit(s->job->request);
    }
    if (!m_queue.isEmpty() && gpusInRotation() == 0) {
        const QString why = QStringLiteral("no GPU is left in rotation: ") + m_removals.join(QStringLiteral("; "));
        for (const Job& j : std::exchange(m_queue, {}))
            Q_EMIT finished(j.ticket, {}, why);
    }
}

void MultiGpuExecutor::onInnerFinished(int i, quint64 inner, const QVariantMap& verdict, const QString& error)
{
    Slot& s = *m_slots[size_t(i)];
    if (!s.job || s.inner != inner || s.state != State::Active)
        return;
    if (error == kCancelled) {
        const quint64 ticket = s.job->ticket;
        s.job.reset();
        Q_EMIT finished(ticket, {}, kCancelled);
        schedulePump();
        return;
    }
    if (!mayBeGpuFault(verdict, error)) {
        deliver(s, verdict, error);
        return;
    }
    s.heldVerdict = verdict;
    s.heldError = error;
    s.state = State::Checking;
    qCWarning(lcVerify).noquote() << s.worker.gpu.label() + QStringLiteral(": a verification ended in a way that may "
                                                                           "be the GPU's fault; checking the GPU");
    // Its worker may hold a broken CUDA context; a healthy GPU gets a fresh one. Deleted later: we are inside its
    // finished() signal.
    s.executor->disconnect(this);
    s.executor.release()->deleteLater();
    auto* check = new GpuHealthCheck(s.worker.launch, m_healthDevice, m_healthTimeoutMs, this);
    connect(check, &GpuHealthCheck::done, this, [this, i, check](bool healthy, const QString& message) {
        check->deleteLater();
        onHealth(i, healthy, message);
    });
    check->start();
}

void MultiGpuExecutor::onHealth(int i, bool healthy, const QString& message)
{
    Slot& s = *m_slots[size_t(i)];
    Q_EMIT healthChecked(s.worker.gpu.index, healthy, message);
    const QString cause =
        !s.heldError.isEmpty()
            ? s.heldError
            : s.heldVerdict.value(QStringLiteral("error")).toMap().value(QStringLiteral("message")).toString();
    const QString after = cause.isEmpty() ? QStringLiteral("a SYSTEM_ERROR") : cause.left(300);
    if (healthy) {
        s.state = State::Active;
        makeExecutor(i);
        if (s.job)
            deliver(s, s.heldVerdict, s.heldError,
                    {{QStringLiteral("healthy"), true}, {QStringLiteral("message"), message}});
        schedulePump();
        return;
    }
    s.state = State::Out;
    m_outGpus.insert(s.worker.gpu.uuid);
    const QString removal = QStringLiteral("%1 taken out of rotation after %2: the health check failed: %3")
                                .arg(s.worker.gpu.label(), after, message.left(500));
    qCWarning(lcVerify).noquote() << removal;
    m_removals.append(removal);
    Q_EMIT gpuRemoved(s.worker.gpu.index, removal);
    if (s.job && !s.job->retried) {
        s.job->retried = true;  // the GPU's fault, not the solution's: once more on another GPU
        m_queue.prepend(*s.job);
        s.job.reset();
    } else if (s.job) {
        deliver(s, s.heldVerdict, s.heldError,
                {{QStringLiteral("healthy"), false}, {QStringLiteral("message"), message}});
    }
    schedulePump();
}

void MultiGpuExecutor::deliver(Slot& s, QVariantMap verdict, QString error, const QVariantMap& health)
{
    const quint64 ticket = s.job->ticket;
    const bool retried = s.job->retried;
    s.job.reset();
    s.heldVerdict.clear();
    s.heldError.clear();
    if (!verdict.isEmpty()) {
        QVariantMap gpu = s.worker.gpu.toEvidence();
        if (!health.isEmpty())
            gpu.insert(QStringLiteral("health_check"), health);
        if (retried)
            gpu.insert(QStringLiteral("retried"), true);
        verdict.insert(QStringLiteral("gpu"), gpu);
    }
    if (!error.isEmpty())
        error = QStringLiteral("on %1: %2").arg(s.worker.gpu.label(), error);
    Q_EMIT finished(ticket, verdict, error);
    schedulePump();
}

}  // namespace km
