// The solution review's reason codes (SolutionReasons.h).
#include "solutions/SolutionReasons.h"

namespace km::ui {

namespace {
const QString kKey = QStringLiteral("solutions/reasons");
}

QList<ReasonCode> defaultSolutionReasonCodes()
{
    return {{QStringLiteral("S1"), QStringLiteral("wrong result on some input")},
            {QStringLiteral("S2"), QStringLiteral("hack suspected")},
            {QStringLiteral("S3"), QStringLiteral("slower than reference")},
            {QStringLiteral("S4"), QStringLiteral("unreadable")},
            {QStringLiteral("S5"), QStringLiteral("numerically fragile")},
            {QStringLiteral("S6"), QStringLiteral("not a real kernel")}};
}

QList<ReasonCode> loadSolutionReasonCodes(QSettings& settings)
{
    return loadReasonCodes(settings, kKey, defaultSolutionReasonCodes());
}

void saveSolutionReasonCodes(QSettings& settings, const QList<ReasonCode>& codes)
{
    saveReasonCodes(settings, codes, kKey);
}

}  // namespace km::ui
