// The acceptance gate's rules (AcceptanceGate.h).
#include "services/AcceptanceGate.h"

#include <algorithm>

namespace km {

GateInput gateInput(const std::optional<Verdict>& latest)
{
    GateInput in;
    if (!latest)
        return in;
    in.hasVerdict = true;
    in.status = toString(latest->status);
    in.device = latest->evidence.value(QStringLiteral("device")).toString();
    in.errorFinding = std::any_of(latest->findings.cbegin(), latest->findings.cend(),
                                  [](const Finding& f) { return f.severity == Finding::Severity::Error; });
    in.harnessVersion = latest->harnessVersion;
    return in;
}

QList<GateRule> unmetGateRules(const GateInput& v, const QString& currentHarness)
{
    if (!v.hasVerdict)
        return {{QStringLiteral("verdict"), QStringLiteral("it has no verdict: verify it first")}};
    QList<GateRule> out;
    if (v.status != QLatin1String("PASSED"))
        out.append({QStringLiteral("passed"), QStringLiteral("its latest verdict is %1, not PASSED").arg(v.status)});
    if (v.device != QLatin1String("cuda"))
        out.append({QStringLiteral("gpu"),
                    v.device.isEmpty()
                        ? QStringLiteral("its latest verdict names no device: it was not measured on a GPU")
                        : QStringLiteral("its latest verdict was measured on %1, not on a GPU (cuda)").arg(v.device)});
    if (v.errorFinding)
        out.append({QStringLiteral("findings"), QStringLiteral("its latest verdict has an error finding")});
    if (v.harnessVersion != currentHarness)
        out.append(
            {QStringLiteral("harness"),
             QStringLiteral("its latest verdict is by harness %1, not the current %2")
                 .arg(v.harnessVersion.isEmpty() ? QStringLiteral("(unknown)") : v.harnessVersion, currentHarness)});
    return out;
}

QList<GateRule> unmetGateRules(const std::optional<Verdict>& latest, const QString& currentHarness)
{
    return unmetGateRules(gateInput(latest), currentHarness);
}

QStringList gateRuleIds()
{
    return {QStringLiteral("verdict"), QStringLiteral("passed"), QStringLiteral("gpu"), QStringLiteral("findings"),
            QStringLiteral("harness")};
}

QString describeGateRules(const QList<GateRule>& rules)
{
    QStringList parts;
    for (const GateRule& r : rules)
        parts << r.message;
    return parts.join(QStringLiteral("; "));
}

QStringList gateRuleIdsOf(const QList<GateRule>& rules)
{
    QStringList ids;
    for (const GateRule& r : rules)
        ids << r.id;
    return ids;
}

}  // namespace km
