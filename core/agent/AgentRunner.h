#pragma once
// Runs agent runs over many tasks: each run drives its AgentLoop on a worker thread of its own (LLM calls in
// parallel, up to `concurrency`), while every verification goes through the one Verifier of the thread that owns
// the runner (its event loop must run). Polls the store for cancel requests and reports steps as they are stored.

#include "agent/AgentLoop.h"

#include <QHash>
#include <QMutex>
#include <QObject>
#include <QTimer>
#include <future>
#include <memory>
#include <thread>

namespace km {

namespace store {
class Database;
}
class TrajectoryStore;

// One run to start (a task), to continue (resumeRunId), or to fork: a new run of the task whose history is the first
// `forkSteps` steps of run forkFromRunId, continued from there.
struct AgentJob {
    Task task;
    qint64 resumeRunId = 0;
    qint64 forkFromRunId = 0;
    int forkSteps = 0;
    bool forkKeepsSettings = false;  // a fork runs with the budgets and verify options the old run recorded
};

struct AgentOutcome {
    QString taskId;
    qint64 runId = 0;
    std::optional<AgentRun> run;  // as it ended
    QString error;                // when it could not be run (or stored) at all
};

class AgentRunner : public QObject {
    Q_OBJECT
public:
    // `resumed`: the run a resume continues, or the run a fork comes from; null for a new run.
    using SourceFactory = std::function<Result<std::unique_ptr<ReplySource>>(const AgentJob&, const AgentRun* resumed)>;

    // `base`: prompts, guidance, verify options and budgets shared by every job (its task is replaced per job).
    AgentRunner(Verifier& verifier, QString dbPath, AgentSetup base, SourceFactory sources, QString actor,
                QObject* parent = nullptr);
    ~AgentRunner() override;

    // Starts the jobs, `concurrency` at a time; finished() follows once all have ended.
    void start(const QList<AgentJob>& jobs, int concurrency);
    void cancelAll();
    // start(), then an event loop until finished(). For the command line and tests, never the GUI thread.
    QList<AgentOutcome> runAndWait(const QList<AgentJob>& jobs, int concurrency);

Q_SIGNALS:
    void runStarted(const QString& taskId, qint64 runId);
    void stepRecorded(const km::AgentRun& run, const km::TrajectoryStep& step);
    // The reply of step `stepIdx` of run `runId` as it streams in: its text so far, the newest every 150 ms
    // (the last text before a stall included; the stored step follows with the whole reply).
    void replyGrew(qint64 runId, int stepIdx, const QString& textSoFar);
    void runEnded(const km::AgentOutcome& outcome);
    void finished(const QList<km::AgentOutcome>& outcomes);

private:
    struct Active {
        std::shared_ptr<std::atomic<bool>> cancel;
    };
    void workerMain();
    AgentOutcome runOne(const AgentJob& job);
    static Result<std::optional<AgentRun>> priorRun(TrajectoryStore& trajectories, const AgentJob& job,
                                                    AgentSetup& setup);
    Verdict verifyFromWorker(const VerifyJob& job);  // any worker thread; blocks it
    void pollCancels();

    Verifier& m_verifier;
    QString m_dbPath;
    AgentSetup m_base;
    SourceFactory m_sources;
    QString m_actor;
    QMutex m_mutex;  // guards the queue, outcomes, active runs
    QList<AgentJob> m_queue;
    QList<AgentOutcome> m_outcomes;
    QHash<qint64, Active> m_active;
    std::atomic<bool> m_cancelAll{false};
    std::atomic<bool> m_shuttingDown{false};
    int m_running = 0;
    std::vector<std::thread> m_threads;
    QHash<quint64, std::shared_ptr<std::promise<Verdict>>> m_waiting;  // by verifier ticket (this thread only)
    QHash<quint64, Verdict> m_early;                                   // verdicts that came before the ticket was kept
    QTimer m_poll;
    std::unique_ptr<store::Database> m_pollDb;  // this thread's connection, for cancel requests
};

}  // namespace km
