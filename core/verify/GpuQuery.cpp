#include "verify/GpuQuery.h"

#include <QProcess>

namespace km {

GpuQuery::GpuQuery(QObject* parent) : QObject(parent)
{
    m_timeout.setSingleShot(true);
}

GpuQuery::~GpuQuery()
{
    cancel();
}

void GpuQuery::start(Callback done, int timeoutMs)
{
    cancel();
    m_done = std::move(done);
    auto program = gpuQueryProgram();
    if (!program) {
        // Answered from the event loop, like every other answer: the caller's start() has returned first.
        QTimer::singleShot(0, this, [this, error = program.error()] { finish({error, {}}); });
        return;
    }
    m_program = program.value();
    m_process = new QProcess(this);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            finish({makeError(ErrorCode::NotFound,
                              QStringLiteral("%1 could not be started: %2").arg(m_program, m_process->errorString())),
                    {}});
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        const QString out = QString::fromLocal8Bit(m_process->readAllStandardOutput());
        const QString err = QString::fromLocal8Bit(m_process->readAllStandardError()).trimmed();
        Answer a;
        auto all = gpuQueryOutcome(m_program, status == QProcess::NormalExit, code, out, err);
        a.gpus = all ? applyCudaVisibleDevices(all.value(), cudaVisibleDevicesSetting(), &a.note)
                     : Result<QList<GpuDevice>>(all.error());
        finish(a);
    });
    m_timeout.disconnect(this);
    connect(&m_timeout, &QTimer::timeout, this, [this, timeoutMs] {
        finish({makeError(ErrorCode::Io,
                          QStringLiteral("%1 did not answer within %2 s").arg(m_program).arg(timeoutMs / 1000)),
                {}});
    });
    m_timeout.start(timeoutMs);
    m_process->start(m_program, gpuQueryArguments());
}

void GpuQuery::cancel()
{
    m_done = nullptr;
    m_timeout.stop();
    if (m_process) {
        QProcess* p = std::exchange(m_process, nullptr);
        p->disconnect(this);
        p->kill();
        p->deleteLater();
    }
}

void GpuQuery::finish(const Answer& answer)
{
    Callback done = std::exchange(m_done, nullptr);
    m_timeout.stop();
    if (m_process) {
        QProcess* p = std::exchange(m_process, nullptr);
        p->disconnect(this);
        if (p->state() != QProcess::NotRunning)
            p->kill();
        p->deleteLater();
    }
    if (done)
        done(answer);
}

}  // namespace km
