#pragma once
// The one writer and reader of `verdicts` rows, for every store (VerdictStore, TrajectoryStore, its import). Runs
// inside whatever transaction the caller has open (a savepoint of it), on the thread that owns the Database.
// Scrubbing secrets is the caller's job: the verdict given is stored as it is.

#include "model/Verdict.h"
#include "util/Result.h"

#include <optional>

namespace km::store {

class Database;

// What the store refuses in any verdict: a status outside the taxonomy, harness evidence carrying the keys the
// store keeps the verdict's findings and diagnostics under (InvalidInput).
Status checkVerdict(const Verdict& v);
// Stores a verdict of a stored solution and the audit entry "verified". Findings and diagnostics go into the
// evidence column beside the harness's evidence. A verdict without a time gets the current one. Returns it as
// stored (id, solution id, time). Refused, nothing written: checkVerdict's cases, a solution not stored (NotFound).
Result<Verdict> writeVerdict(Database& db, qint64 solutionId, const Verdict& v, const QString& actor);

Result<std::optional<Verdict>> readVerdict(Database& db, qint64 id);

}  // namespace km::store
