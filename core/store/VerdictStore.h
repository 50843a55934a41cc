#pragma once
// Solutions and their verdicts, over the store file a TaskStore opened (docs/store.md). Lives on the thread that
// owns the Database it is given (one connection per thread): build another on another thread's Database.

#include "model/Verdict.h"
#include "util/Result.h"
#include "util/SecretScrubber.h"

namespace km {
namespace store {
class Database;
}

// What a verdict list asks for; every field left empty selects all.
struct VerdictFilter {
    QString taskId;
    QList<VerdictStatus> statuses;  // any of
    qint64 solutionId = 0;          // 0: any solution
    int limit = 0;                  // 0: no limit
};

class VerdictStore {
public:
    // `secrets`: scrubbed from every text written (code, summary, evidence ...); none by default.
    explicit VerdictStore(store::Database& db, SecretScrubber secrets = {}) : m_db(db), m_secrets(std::move(secrets)) {}

    // Stores a solution of a task (origin: manual, agent or import), with an audit entry. Idempotent per task and
    // code: the same code stored again returns the row stored first, unchanged. NotFound when the task does not
    // exist; nothing is written then.
    Result<Solution> addSolution(const QString& taskId, const QString& code, const QString& origin,
                                 const QString& actor);
    // Stores a verdict of a stored solution and the audit entry "verified", in one transaction. Findings and
    // diagnostics go into the evidence column beside the harness's evidence, whose keys must not be theirs.
    // A verdict without a time gets the current one. Returns the verdict as stored (id, solution id, time).
    Result<Verdict> addVerdict(qint64 solutionId, const Verdict& v, const QString& actor);
    // addSolution and addVerdict in one transaction: either both rows (and their audit entries) are stored or
    // neither is. Returns the verdict as stored; its solutionId names the solution row.
    Result<Verdict> recordVerified(const QString& taskId, const QString& code, const QString& origin, const Verdict& v,
                                   const QString& actor);

    Result<std::optional<Verdict>> verdict(qint64 id);
    Result<std::optional<Solution>> solution(qint64 id);
    // Newest first (created_at, then id).
    Result<QList<VerdictSummary>> verdicts(const VerdictFilter& f = {});
    Result<std::optional<Verdict>> latestVerdict(qint64 solutionId);

private:
    store::Database& m_db;
    SecretScrubber m_secrets;
};

}  // namespace km
