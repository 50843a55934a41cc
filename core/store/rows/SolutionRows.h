#pragma once
// The one writer and reader of `solutions` rows, for every store (VerdictStore, TrajectoryStore, its import). Runs
// inside whatever transaction the caller has open (a savepoint of it), on the thread that owns the Database.
// Scrubbing secrets is the caller's job: the code given is stored as it is.

#include "model/Verdict.h"
#include "util/Result.h"

#include <optional>

namespace km::store {

class Database;

// What writeSolution did: the row (new or the one stored before) and whether it wrote it.
struct SolutionWrite {
    Solution solution;
    bool created = false;
};

// Stores a solution of a stored task (origin manual, agent or import) with the audit entry "created". Idempotent
// per task and code: the same code again returns the row stored first, unchanged, writing nothing. `createdAt`:
// the new row's time as the store writes it (empty: now). Refused (nothing written): an unknown origin
// (InvalidInput), a task that is not stored (NotFound).
Result<SolutionWrite> writeSolution(Database& db, const QString& taskId, const QString& code, const QString& origin,
                                    const QString& actor, const QString& createdAt = {});
// Links a solution to the step that produced it, unless it is linked already.
Status linkSolutionToStep(Database& db, qint64 solutionId, qint64 stepId);

Result<std::optional<Solution>> readSolution(Database& db, qint64 id);

}  // namespace km::store
