#pragma once
// The integrity gate on accepting a solution: which of its rules the solution's latest verdict fails. One pure
// function, used by SolutionReviewService::decide, the solution listing, the CLI and the workbench's solution
// review, so they cannot disagree. Any thread.

#include "model/Verdict.h"

#include <QList>
#include <QString>
#include <optional>

namespace km {

// One unmet rule: a stable id (what an override records) and a sentence for people.
struct GateRule {
    QString id;  // verdict, passed, gpu, findings, harness
    QString message;
    bool operator==(const GateRule&) const = default;
};

// What the gate reads of a verdict: enough to judge it without its evidence (a listing fills it from columns).
struct GateInput {
    bool hasVerdict = false;
    QString status;             // "PASSED", ...
    QString device;             // evidence.device: "cuda", "cpu"; empty when the verdict names none
    bool errorFinding = false;  // a finding of severity error
    QString harnessVersion;     // the harness that measured it
};

GateInput gateInput(const std::optional<Verdict>& latest);

// The rules `latest` fails, in the order above (empty: it may be accepted plainly). Without a verdict only the
// rule "verdict" is reported: the others would only repeat it. `currentHarness`: harnessVersion() of this build.
QList<GateRule> unmetGateRules(const GateInput& latest, const QString& currentHarness);
QList<GateRule> unmetGateRules(const std::optional<Verdict>& latest, const QString& currentHarness);

// Every rule id, in order (for lists and filters).
QStringList gateRuleIds();
// "status PASSED, measured on a GPU" ...: the rules' messages joined for one line.
QString describeGateRules(const QList<GateRule>& rules);
QStringList gateRuleIdsOf(const QList<GateRule>& rules);

}  // namespace km
