#include "model/Verdict.h"

namespace km {

namespace {
struct StatusName {
    VerdictStatus status;
    const char* name;
};
// In the enum's order, which is the order of precedence.
constexpr StatusName kStatusNames[] = {
    {VerdictStatus::InvalidReference, "INVALID_REFERENCE"},
    {VerdictStatus::SystemError, "SYSTEM_ERROR"},
    {VerdictStatus::RewardHack, "REWARD_HACK"},
    {VerdictStatus::CompileError, "COMPILE_ERROR"},
    {VerdictStatus::Timeout, "TIMEOUT"},
    {VerdictStatus::RuntimeError, "RUNTIME_ERROR"},
    {VerdictStatus::IncorrectShape, "INCORRECT_SHAPE"},
    {VerdictStatus::IncorrectDtype, "INCORRECT_DTYPE"},
    {VerdictStatus::IncorrectNumerical, "INCORRECT_NUMERICAL"},
    {VerdictStatus::Passed, "PASSED"},
};
}  // namespace

QString toString(VerdictStatus s)
{
    for (const StatusName& n : kStatusNames)
        if (n.status == s)
            return QString::fromLatin1(n.name);
    return {};  // a value outside the taxonomy: callers refuse it
}

std::optional<VerdictStatus> verdictStatusFromString(const QString& s)
{
    for (const StatusName& n : kStatusNames)
        if (s == QLatin1String(n.name))
            return n.status;
    return std::nullopt;
}

const QList<VerdictStatus>& allVerdictStatuses()
{
    static const QList<VerdictStatus> all = [] {
        QList<VerdictStatus> out;
        for (const StatusName& n : kStatusNames)
            out.append(n.status);
        return out;
    }();
    return all;
}

QString toString(Finding::Severity s)
{
    switch (s) {
    case Finding::Severity::Error: return QStringLiteral("error");
    case Finding::Severity::Warning: return QStringLiteral("warning");
    }
    return {};
}

}  // namespace km
