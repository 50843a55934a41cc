#pragma once
// The verifier: static checks, then the harness through an executor, then the verdict (docs/verifier.md).
// Asynchronous; lives on the thread that created it. verifyAndWait() serves the command line and tests.

#include "model/Task.h"
#include "model/Verdict.h"
#include "util/Result.h"

#include <QHash>
#include <QObject>
#include <functional>

namespace km {

class Executor;

struct VerifyOptions {
    QString device = QStringLiteral("auto");  // auto, cpu, cuda
    QStringList configs;                      // empty: all on a GPU, small* on the CPU
    int seeds = 3;
    int timingRuns = 0;  // 0: the harness's default (100 on a GPU, 10 on the CPU)
    double timeoutS = 300;
    int memoryMb = 16384;
    int fileMb = 1024;
    QString buildCache;           // empty: the worker's own scratch
    double buildCacheMaxGb = 20;  // least recently used builds are evicted beyond this
    bool profile = true;
    bool ncu = false;              // Nsight Compute metrics of the solution's kernels (GPU, after a pass)
    bool memcheck = false;         // compute-sanitizer memcheck of the solution (GPU, after a pass)
    bool compileBaseline = false;  // time torch.compile of the reference as a second baseline
    bool sandbox = true;           // false only with --unsafe-no-sandbox: solution code then runs unconfined
};

struct VerifyJob {
    Task task;
    QString solutionSource;
    QString solutionPath;  // as the user named it, for messages
    VerifyOptions options;
};

class Verifier : public QObject {
    Q_OBJECT
public:
    explicit Verifier(Executor& executor, QObject* parent = nullptr);

    quint64 verify(const VerifyJob& job);
    void cancel(quint64 ticket);
    Executor& executor() { return m_executor; }

    // The harness request for a job (pure): task, solution, options.
    static QVariantMap request(const VerifyJob& job);

Q_SIGNALS:
    void phase(quint64 ticket, const QString& phase);
    void verdictReady(quint64 ticket, const km::Verdict& verdict);

private:
    struct Pending {
        QList<Finding> findings;
        QString source;
    };
    Executor& m_executor;
    QHash<quint64, Pending> m_pending;
};

// Runs one verification to its end in a local event loop. For the command line and tests, not the GUI thread.
Verdict verifyAndWait(Verifier& verifier, const VerifyJob& job,
                      const std::function<void(const QString&)>& onPhase = {});
// Runs many jobs in a local event loop, at most `inFlight` submitted at once (in order); each verdict goes to
// `onVerdict` with its job's index as it comes. `onVerdict` returning false cancels the rest and returns.
void verifyAllAndWait(Verifier& verifier, const QList<VerifyJob>& jobs, int inFlight,
                      const std::function<void(int, const QString&)>& onPhase,
                      const std::function<bool(int, const Verdict&)>& onVerdict);

}  // namespace km
