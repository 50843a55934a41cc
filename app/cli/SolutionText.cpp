// Solutions as text and JSON (SolutionText.h).
#include "cli/SolutionText.h"

#include "model/VerdictCodec.h"

namespace km::cli {

QString gateText(const QList<GateRule>& unmet)
{
    return unmet.isEmpty() ? QStringLiteral("ok") : gateRuleIdsOf(unmet).join(QLatin1Char(','));
}

QVariantList gateToVariant(const QList<GateRule>& unmet)
{
    QVariantList out;
    for (const GateRule& r : unmet)
        out.append(QVariantMap{{QStringLiteral("id"), r.id}, {QStringLiteral("message"), r.message}});
    return out;
}

QVariantMap listingToVariant(const SolutionListing& s)
{
    return {
        {QStringLiteral("id"), s.id},
        {QStringLiteral("task_id"), s.taskId},
        {QStringLiteral("origin"), s.origin},
        {QStringLiteral("created_at"), isoUtc(s.createdAt)},
        {QStringLiteral("review_status"), toString(s.reviewStatus)},
        {QStringLiteral("verdicts"), s.verdicts},
        {QStringLiteral("latest_status"), s.latestStatus},
        {QStringLiteral("latest_speedup"), s.latestSpeedup ? QVariant(*s.latestSpeedup) : QVariant()},
        {QStringLiteral("gpu"), s.gpuName},
        {QStringLiteral("device"), s.device},
        {QStringLiteral("harness_version"), s.harnessVersion},
        {QStringLiteral("last_reviewer"), s.lastReviewer},
        {QStringLiteral("last_reviewed_at"),
         s.lastReviewedAt.isValid() ? QVariant(isoUtc(s.lastReviewedAt)) : QVariant()},
        {QStringLiteral("parent_id"), s.parentId ? QVariant(s.parentId) : QVariant()},
        {QStringLiteral("gate_ok"), s.unmetGate.isEmpty()},
        {QStringLiteral("gate"), gateToVariant(s.unmetGate)},
    };
}

QVariantMap reviewToVariant(const ReviewRecord& r)
{
    return {{QStringLiteral("id"), r.id},           {QStringLiteral("solution_id"), r.solutionId},
            {QStringLiteral("task_id"), r.taskId},  {QStringLiteral("reviewer"), r.reviewer},
            {QStringLiteral("at"), isoUtc(r.at)},   {QStringLiteral("from"), toString(r.from)},
            {QStringLiteral("to"), toString(r.to)}, {QStringLiteral("reason"), r.reason},
            {QStringLiteral("comment"), r.comment}, {QStringLiteral("override"), r.overriddenRules}};
}

QString decisionText(const ReviewRecord& r)
{
    QString text = toString(r.from) + QStringLiteral(" -> ") + toString(r.to);
    if (r.isOverride())
        text += QStringLiteral(" (override: %1)").arg(r.overriddenRules.join(QLatin1Char(',')));
    return text;
}

}  // namespace km::cli
