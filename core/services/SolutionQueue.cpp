// SolutionReviewService's reads: the review queue (one query; the gate judged from columns, no evidence decoded)
// and one solution in full.
#include "services/SolutionReviewService.h"

#include "model/VerdictCodec.h"
#include "store/Database.h"
#include "store/Row.h"
#include "store/VerdictStore.h"
#include "store/rows/ReviewRows.h"
#include "store/rows/SolutionRows.h"

#include <QSqlQuery>

namespace km {

namespace {
// Each solution with its latest verdict (the order VerdictStore::latestVerdict uses) and its latest decision.
const char* const kQueue = R"(
SELECT * FROM (
  SELECT s.id, s.task_id, s.origin, s.created_at, s.review_status, s.parent_id,
    (SELECT COUNT(*) FROM verdicts v WHERE v.solution_id = s.id) AS verdicts,
    lv.id AS latest_id, lv.status AS latest_status, lv.speedup AS latest_speedup,
    lv.harness_version AS harness_version,
    json_extract(lv.environment, '$.gpu.name') AS gpu_name,
    json_extract(lv.evidence, '$.device') AS device,
    EXISTS (SELECT 1 FROM json_each(lv.evidence, '$.findings') f
            WHERE json_extract(f.value, '$.severity') = 'error') AS error_finding,
    (SELECT r.reviewer FROM reviews r WHERE r.solution_id = s.id ORDER BY r.id DESC LIMIT 1) AS last_reviewer,
    (SELECT r.at FROM reviews r WHERE r.solution_id = s.id ORDER BY r.id DESC LIMIT 1) AS last_reviewed_at
  FROM solutions s
  LEFT JOIN verdicts lv ON lv.id = (SELECT v.id FROM verdicts v WHERE v.solution_id = s.id
                                    ORDER BY v.created_at DESC, v.id DESC LIMIT 1)
) q WHERE 1)";

QString marks(int n)
{
    QStringList m;
    for (int i = 0; i < n; ++i)
        m << QStringLiteral("?");
    return m.join(QLatin1Char(','));
}

Result<SolutionListing> listingFromRow(store::Row& row, const QString& currentHarness)
{
    SolutionListing l;
    l.id = row.integer("id");
    l.taskId = row.text("task_id");
    l.origin = row.text("origin");
    l.createdAt = parseIsoUtc(row.text("created_at")).value_or(QDateTime());
    l.reviewStatus = reviewStatusFromString(row.text("review_status")).value_or(ReviewStatus::Draft);
    l.parentId = row.integer("parent_id");
    l.verdicts = int(row.integer("verdicts"));
    l.latestStatus = row.text("latest_status");
    l.latestSpeedup = row.optionalReal("latest_speedup");
    l.harnessVersion = row.text("harness_version");
    l.gpuName = row.text("gpu_name");
    l.device = row.text("device");
    l.lastReviewer = row.text("last_reviewer");
    l.lastReviewedAt = parseIsoUtc(row.text("last_reviewed_at")).value_or(QDateTime());
    GateInput in;
    in.hasVerdict = row.integer("latest_id") != 0;
    in.status = l.latestStatus;
    in.device = l.device;
    in.errorFinding = row.integer("error_finding") != 0;
    in.harnessVersion = l.harnessVersion;
    l.unmetGate = unmetGateRules(in, currentHarness);
    if (Status st = row.status(); !st)
        return st.error();
    return l;
}
}  // namespace

Result<QList<SolutionListing>> SolutionReviewService::list(const SolutionFilter& f)
{
    QString sql = QString::fromLatin1(kQueue);
    QVariantList bindings;
    if (!f.taskId.isEmpty()) {
        sql += QStringLiteral(" AND task_id = ?");
        bindings << f.taskId;
    }
    if (!f.reviewStatuses.isEmpty()) {
        sql += QStringLiteral(" AND review_status IN (%1)").arg(marks(int(f.reviewStatuses.size())));
        for (ReviewStatus st : f.reviewStatuses)
            bindings << toString(st);
    }
    if (!f.origins.isEmpty()) {
        sql += QStringLiteral(" AND origin IN (%1)").arg(marks(int(f.origins.size())));
        for (const QString& o : f.origins)
            bindings << o;
    }
    if (!f.verdictStatuses.isEmpty()) {
        const bool none = f.verdictStatuses.contains(QStringLiteral("NONE"));
        sql += QStringLiteral(" AND (latest_status IN (%1)%2)")
                   .arg(marks(int(f.verdictStatuses.size())),
                        none ? QStringLiteral(" OR latest_status IS NULL") : QString());
        for (const QString& v : f.verdictStatuses)
            bindings << v;
    }
    if (!f.reviewer.isEmpty()) {
        sql += QStringLiteral(" AND last_reviewer = ?");
        bindings << f.reviewer;
    }
    sql += QStringLiteral(" ORDER BY created_at DESC, id DESC");
    if (f.limit > 0) {
        sql += QStringLiteral(" LIMIT ?");
        bindings << f.limit;
    }
    auto q = m_db.exec(sql, bindings);
    if (!q)
        return q.error();
    QSqlQuery query = std::move(q).value();
    return store::readRows<SolutionListing>(query,
                                            [this](store::Row& row) { return listingFromRow(row, m_currentHarness); });
}

Result<SolutionDetail> SolutionReviewService::detail(qint64 solutionId)
{
    auto q = m_db.exec(QStringLiteral("SELECT review_status, parent_id FROM solutions WHERE id = ?"), {solutionId});
    if (!q)
        return q.error();
    QSqlQuery row = std::move(q).value();
    if (!row.next())
        return makeError(ErrorCode::NotFound, QStringLiteral("no solution with id %1").arg(solutionId));
    SolutionDetail d;
    d.reviewStatus = reviewStatusFromString(row.value(0).toString()).value_or(ReviewStatus::Draft);
    d.parentId = row.value(1).toLongLong();
    auto solution = store::readSolution(m_db, solutionId);
    if (!solution)
        return solution.error();
    if (!solution->has_value())
        return makeError(ErrorCode::NotFound, QStringLiteral("no solution with id %1").arg(solutionId));
    d.solution = solution->value();
    VerdictStore verdicts(m_db);
    VerdictFilter vf;
    vf.solutionId = solutionId;
    auto summaries = verdicts.verdicts(vf);
    if (!summaries)
        return summaries.error();
    for (const VerdictSummary& s : summaries.value()) {
        auto v = verdicts.verdict(s.id);
        if (!v)
            return v.error();
        if (v->has_value())
            d.verdicts.append(v->value());
    }
    d.unmetGate = unmetGateRules(
        d.verdicts.isEmpty() ? std::optional<Verdict>() : std::optional<Verdict>(d.verdicts.first()), m_currentHarness);
    auto history = store::readSolutionReviews(m_db, solutionId);
    if (!history)
        return history.error();
    d.history = std::move(history).value();
    return d;
}

}  // namespace km
