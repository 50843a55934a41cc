#pragma once
// Decisions on solutions: accept, reject, needs changes (or back to draft / in review), with reviewer, reason and
// comment, in one transaction with the solution's review_status and an audit entry. Accepting passes the
// acceptance gate (AcceptanceGate.h) on the solution's latest verdict, or overrides it with a written reason,
// recorded as an override. Also the review queue and Fix & Accept's new solution. Lives on the thread that owns
// the Database it is given.

#include "model/Review.h"
#include "model/Verdict.h"
#include "services/AcceptanceGate.h"
#include "util/Result.h"

namespace km {

namespace store {
class Database;
}

// One row of the solution review queue: a stored solution, where it stands, and its latest verdict.
struct SolutionListing {
    qint64 id = 0;
    QString taskId;
    QString origin;  // manual, agent, import
    QDateTime createdAt;
    ReviewStatus reviewStatus = ReviewStatus::Draft;
    int verdicts = 0;
    QString latestStatus;                 // the latest verdict's status; empty without one
    std::optional<double> latestSpeedup;  // as timed, whatever the verdict; creditedSpeedup() for display
    QString gpuName;         // the latest verdict's GPU (environment.gpu.name); empty on the CPU or without one
    QString device;          // the latest verdict's device (evidence.device): cuda, cpu
    QString harnessVersion;  // the harness that gave the latest verdict
    QString lastReviewer;    // who made the latest decision; empty: none yet
    QDateTime lastReviewedAt;
    qint64 parentId = 0;        // the solution this one was fixed from (Fix & Accept); 0: none
    QList<GateRule> unmetGate;  // the acceptance gate's unmet rules on the latest verdict; empty: may be accepted

    // The speedup the solution may claim: only a PASSED verdict's. A wrong or refused result's timing is no speedup
    // (the stale-memory trick "runs" at 179x).
    std::optional<double> creditedSpeedup() const
    {
        return latestStatus == QLatin1String("PASSED") ? latestSpeedup : std::nullopt;
    }
};

// What a listing asks for; empty fields select all.
struct SolutionFilter {
    QString taskId;
    QList<ReviewStatus> reviewStatuses;  // any of
    QStringList origins;                 // any of: manual, agent, import
    QStringList verdictStatuses;         // any of, of the latest verdict; "NONE" selects solutions without one
    QString reviewer;                    // the last decision's reviewer
    int limit = 0;                       // 0: no limit
};

// One solution in full for `solutions show` and the view: its code, every verdict (newest first), the gate on the
// latest, its decisions.
struct SolutionDetail {
    Solution solution;
    qint64 parentId = 0;
    ReviewStatus reviewStatus = ReviewStatus::Draft;
    QList<Verdict> verdicts;  // newest first
    QList<GateRule> unmetGate;
    QList<ReviewRecord> history;  // oldest first
    // The solution's audit entries (created, verified, fixed, status), oldest first: filled by a caller that has the
    // TaskStore (TaskStore::audit), e.g. the workbench's History tab; detail() leaves it empty.
    QList<AuditEntry> audit;
};

class SolutionReviewService {
public:
    // `currentHarness`: the harness version the gate requires (harnessVersion() of this build when empty).
    explicit SolutionReviewService(store::Database& db, QString currentHarness = {});

    // NotFound for an unknown solution; InvalidInput without a reviewer; Conflict when accepting a solution that
    // fails the acceptance gate, naming the unmet rules, unless `overrideGate` is given with a written reason or
    // comment (else InvalidInput): then the decision records the rules it overrode (ReviewRecord::overriddenRules,
    // and "override" in the audit entry). An override of a solution that meets the gate records none. Nothing is
    // written on an error.
    Result<ReviewRecord> decide(qint64 solutionId, ReviewStatus to, const QString& reviewer, const QString& reason = {},
                                const QString& comment = {}, bool overrideGate = false);
    // The gate's unmet rules on the solution's latest verdict; NotFound for an unknown solution.
    Result<QList<GateRule>> gate(qint64 solutionId);
    // Code, verdicts, gate and decisions of one solution; NotFound for an unknown one.
    Result<SolutionDetail> detail(qint64 solutionId);
    // Fix & Accept: stores `code` as a new solution (origin manual) of the parent's task, linked to it
    // (parent_id), with an audit entry "fixed" naming the parent. InvalidInput when the code is empty or the
    // parent's own; NotFound for an unknown parent. Verify it, then decide() on it.
    Result<Solution> addFix(qint64 parentId, const QString& code, const QString& actor);
    // The solution's review status (draft until decided); NotFound for an unknown solution.
    Result<ReviewStatus> status(qint64 solutionId);
    // Its decisions, oldest first.
    Result<QList<ReviewRecord>> history(qint64 solutionId);
    // The review queue, newest solution first.
    Result<QList<SolutionListing>> list(const SolutionFilter& filter = {});

    const QString& currentHarness() const { return m_currentHarness; }

private:
    store::Database& m_db;
    QString m_currentHarness;
};

}  // namespace km
