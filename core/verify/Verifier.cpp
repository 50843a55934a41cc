#include "verify/Verifier.h"

#include "verify/Executor.h"
#include "verify/StaticChecks.h"
#include "verify/VerdictAssembly.h"

#include <QEventLoop>

namespace km {

Verifier::Verifier(Executor& executor, QObject* parent) : QObject(parent), m_executor(executor)
{
    connect(&m_executor, &Executor::phase, this, [this](quint64 t, const QString& p) {
        if (m_pending.contains(t))
            Q_EMIT phase(t, p);
    });
    connect(
        &m_executor, &Executor::finished, this, [this](quint64 t, const QVariantMap& harness, const QString& error) {
            const auto it = m_pending.find(t);
            if (it == m_pending.end())
                return;
            AssemblyInput in{harness, error, it->findings, it->source, m_executor.name(), m_executor.workerIsolation()};
            m_pending.erase(it);
            Q_EMIT verdictReady(t, assembleVerdict(in));
        });
}

QVariantMap Verifier::request(const VerifyJob& job)
{
    const Task& t = job.task;
    QVariantList configs;
    for (const TaskConfig& c : t.configs)
        configs.append(QVariantMap{{QStringLiteral("name"), c.name}, {QStringLiteral("values"), c.values}});
    const Tolerance tol = t.tolerance.value_or(defaultTolerance(t.dtype));
    QVariantMap task{{QStringLiteral("id"), t.id},
                     {QStringLiteral("reference"), t.reference},
                     {QStringLiteral("dtype"), t.dtype},
                     {QStringLiteral("configs"), configs},
                     {QStringLiteral("forbidden_ops"), t.forbiddenOps},
                     {QStringLiteral("flops_formula"), t.flopsFormula},
                     {QStringLiteral("bytes_formula"), t.bytesFormula},
                     {QStringLiteral("tolerance"),
                      QVariantMap{{QStringLiteral("atol"), tol.atol}, {QStringLiteral("rtol"), tol.rtol}}}};
    const VerifyOptions& o = job.options;
    QVariantMap options{{QStringLiteral("device"), o.device},
                        {QStringLiteral("seeds"), o.seeds},
                        {QStringLiteral("timeout_s"), o.timeoutS},
                        {QStringLiteral("memory_mb"), o.memoryMb},
                        {QStringLiteral("file_mb"), o.fileMb},
                        {QStringLiteral("profile"), o.profile},
                        {QStringLiteral("ncu"), o.ncu},
                        {QStringLiteral("memcheck"), o.memcheck},
                        {QStringLiteral("compile_baseline"), o.compileBaseline},
                        {QStringLiteral("sandbox"), o.sandbox}};
    if (!o.configs.isEmpty())
        options.insert(QStringLiteral("configs"), o.configs);
    if (o.timingRuns > 0)
        options.insert(QStringLiteral("timing_runs"), o.timingRuns);
    if (!o.buildCache.isEmpty())
        options.insert(QStringLiteral("build_cache"), o.buildCache);
    options.insert(QStringLiteral("build_cache_max_gb"), o.buildCacheMaxGb);
    return {{QStringLiteral("task"), task},
            {QStringLiteral("solution"),
             QVariantMap{{QStringLiteral("source"), job.solutionSource}, {QStringLiteral("path"), job.solutionPath}}},
            {QStringLiteral("options"), options}};
}

quint64 Verifier::verify(const VerifyJob& job)
{
    Pending p;
    p.findings = runStaticChecks({job.solutionSource, job.task.reference, job.task.forbiddenOps, job.task.dtype});
    p.source = job.solutionSource;
    const quint64 ticket = m_executor.submit(request(job));
    m_pending.insert(ticket, p);
    return ticket;
}

void Verifier::cancel(quint64 ticket)
{
    m_executor.cancel(ticket);
}

Verdict verifyAndWait(Verifier& verifier, const VerifyJob& job, const std::function<void(const QString&)>& onPhase)
{
    QEventLoop loop;
    Verdict result;
    quint64 ticket = 0;
    bool done = false;
    const auto c1 = QObject::connect(&verifier, &Verifier::verdictReady, &loop, [&](quint64 t, const Verdict& v) {
        if (t != ticket)
            return;
        result = v;
        done = true;
        loop.quit();
    });
    const auto c2 = QObject::connect(&verifier, &Verifier::phase, &loop, [&](quint64 t, const QString& p) {
        if (t == ticket && onPhase)
            onPhase(p);
    });
    ticket = verifier.verify(job);
    if (!done)
        loop.exec();
    QObject::disconnect(c1);
    QObject::disconnect(c2);
    return result;
}

void verifyAllAndWait(Verifier& verifier, const QList<VerifyJob>& jobs, int inFlight,
                      const std::function<void(int, const QString&)>& onPhase,
                      const std::function<bool(int, const Verdict&)>& onVerdict)
{
    QEventLoop loop;
    QHash<quint64, int> running;  // ticket -> job index
    int next = 0;
    bool stopped = false;
    const auto fill = [&] {
        while (!stopped && next < jobs.size() && running.size() < std::max(1, inFlight)) {
            const int index = next++;
            running.insert(verifier.verify(jobs[index]), index);
        }
        if (running.isEmpty())
            loop.quit();
    };
    const auto c1 = QObject::connect(&verifier, &Verifier::verdictReady, &loop, [&](quint64 t, const Verdict& v) {
        const auto it = running.find(t);
        if (it == running.end())
            return;
        const int index = it.value();
        running.erase(it);
        if (stopped)
            return;
        if (!onVerdict(index, v)) {
            stopped = true;
            for (quint64 other : running.keys())
                verifier.cancel(other);
            running.clear();
            loop.quit();
            return;
        }
        fill();
    });
    const auto c2 = QObject::connect(&verifier, &Verifier::phase, &loop, [&](quint64 t, const QString& p) {
        if (running.contains(t) && onPhase)
            onPhase(running.value(t), p);
    });
    fill();
    if (!running.isEmpty())
        loop.exec();
    QObject::disconnect(c1);
    QObject::disconnect(c2);
}

}  // namespace km
