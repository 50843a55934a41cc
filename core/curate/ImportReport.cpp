#include "curate/ImportReport.h"

namespace km {

QString ImportIssue::format() const
{
    const QString kind = severity == Severity::Error ? QStringLiteral("error") : QStringLiteral("warning");
    if (line > 0)
        return QStringLiteral("%1:%2: %3: %4").arg(file).arg(line).arg(kind, reason);
    return QStringLiteral("%1: %2: %3").arg(file, kind, reason);
}

int ImportBatch::errorCount() const
{
    int n = 0;
    for (const ImportIssue& i : issues)
        n += i.severity == ImportIssue::Severity::Error ? 1 : 0;
    return n;
}

}  // namespace km
