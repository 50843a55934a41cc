#pragma once
// Agent runs and their steps (docs/store.md, v6), over the store file a TaskStore opened. Each step is written in
// one transaction with its solution and verdict, so a process killed at any moment loses no completed step. Lives
// on the thread that owns the Database it is given: build another on another thread's Database.

#include "model/Trajectory.h"
#include "model/Verdict.h"
#include "util/Result.h"
#include "util/SecretScrubber.h"

namespace km {
namespace store {
class Database;
}

// What importRun did with one bundled run: stored it as runId, or skipped it (already stored as runId).
struct RunImport {
    qint64 runId = 0;
    bool skipped = false;
};

// Where a forked run starts: the first `steps` steps of run `fromRunId` (1 or more), and which of them was the best
// (an id of the old run's steps; 0 when none passed).
struct RunFork {
    qint64 fromRunId = 0;
    int steps = 0;
    qint64 bestStepId = 0;
};

// Which runs bundledRuns reads: the listed ids, else the runs of a task, else all.
struct RunSelection {
    QList<qint64> ids;
    QString taskId;
};

class TrajectoryStore {
public:
    // `secrets`: scrubbed from every text written (runs, steps, solutions, verdicts, imports); none by default.
    explicit TrajectoryStore(store::Database& db, SecretScrubber secrets = {}) : m_db(db), m_secrets(std::move(secrets))
    {
    }

    // "pid@host" of this process, and whether an owner string names a live process (always true for another host:
    // it cannot be checked from here).
    static QString thisOwner();
    static bool ownerAlive(const QString& owner);

    // Stores a new run (state running, owned by this process, started now) and returns it with its id.
    Result<AgentRun> createRun(AgentRun run, const QString& actor);
    // One completed step (scrubbed), in ONE transaction: its solution (origin agent, linked to the step) and verdict
    // when it has code and a verdict, the step row, and the run's stage, totals and best step (`best`: this step is the
    // run's best so far). Returns the step as stored, with its ids.
    Result<TrajectoryStep> recordStep(const AgentRun& run, TrajectoryStep step, const std::optional<Verdict>& verdict,
                                      bool best, const QString& actor);
    // Ends a run: state (completed, cancelled, failed, interrupted), error, totals; ended_at now.
    Status finishRun(qint64 runId, RunState state, const QString& error, const QVariantMap& totals);
    // Marks the run for cancellation; the process running it polls cancelRequested() between steps.
    // A run that is not running is refused (Conflict).
    Status requestCancel(qint64 runId);
    Result<bool> cancelRequested(qint64 runId);
    // Runs left 'running' by a process that is gone (this host, pid not alive) become 'interrupted'. Returns them.
    Result<QList<qint64>> markDeadRunsInterrupted();
    // Takes over an interrupted, failed or cancelled run to continue it: state running, owner this process, no
    // cancel request, no error. Refused (Conflict) for a completed run or one a live process runs.
    Result<AgentRun> claimForResume(qint64 runId);

    // A new run (as createRun stores it: running, owned by this process, started now) whose history is the first
    // fork.steps steps of another run of the same task, copied with their solutions and verdicts (shared, not
    // duplicated), its stage the one after them, `run.totals` as given and settings.forked_from = {run_id, step,
    // started_at} (TrajectoryFork.cpp). Refused: no such run (NotFound), another task, fewer steps or none
    // (InvalidInput). One transaction: on any error nothing is written.
    Result<AgentRun> forkRun(AgentRun run, const RunFork& fork, const QString& actor);

    Result<std::optional<AgentRun>> run(qint64 runId);
    Result<QList<AgentRun>> runs(const QString& taskId = {}, int limit = 0);  // newest first
    Result<QList<TrajectoryStep>> steps(qint64 runId);                        // in order

    // Runs with their steps and verdicts, oldest first, ready for a bundle (TrajectoryImport.cpp). A listed id
    // that is not stored is NotFound. The origin is the run's provenance origin when it was imported, else empty.
    Result<QList<BundledRun>> bundledRuns(const RunSelection& which);
    // Stores one bundled run in ONE transaction (TrajectoryImport.cpp): the run as it was (timestamps, state,
    // totals; running becomes interrupted; no owner), settings.provenance = `provenance` + {origin, imported_at},
    // each step with its solution (origin agent, once per task and code) and verdict, the best step, and audit
    // entries "imported". A run already stored (same provenance origin, or same task, start and steps) is skipped.
    // The task must be stored (NotFound). On any error nothing is written.
    Result<RunImport> importRun(const BundledRun& run, const QVariantMap& provenance, const QString& actor);

private:
    struct StoredVerdict {
        qint64 solutionId = 0;
        qint64 verdictId = 0;
        bool newSolution = false;  // false: the task already had this code
    };
    // Inside the caller's transaction (TrajectoryRows.cpp). `solutionTime`: the new solution's created_at (empty:
    // now).
    Result<StoredVerdict> storeSolutionAndVerdict(const QString& taskId, const QString& code, const Verdict& v,
                                                  const QString& actor, const QString& solutionTime = {});
    Result<std::optional<qint64>> alreadyImported(const BundledRun& run);
    store::Database& m_db;
    SecretScrubber m_secrets;
};

}  // namespace km
