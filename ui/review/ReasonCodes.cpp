#include "review/ReasonCodes.h"

#include <QSettings>

namespace km::ui {

namespace {
const QString kReasonsKey = QStringLiteral("review/reasons");
}

QList<ReasonCode> defaultReasonCodes()
{
    return {
        {QStringLiteral("R1"), QStringLiteral("unclear spec")},
        {QStringLiteral("R2"), QStringLiteral("reference program wrong")},
        {QStringLiteral("R3"), QStringLiteral("duplicate task")},
        {QStringLiteral("R4"), QStringLiteral("too easy")},
        {QStringLiteral("R5"), QStringLiteral("shapes or tolerance wrong")},
        {QStringLiteral("R6"), QStringLiteral("presentation missing")},
    };
}

QList<ReasonCode> loadReasonCodes(QSettings& settings)
{
    const QStringList stored = settings.value(kReasonsKey).toStringList();
    QList<ReasonCode> out;
    for (const QString& entry : stored) {
        const QString text = entry.trimmed();
        if (text.isEmpty())
            continue;
        const qsizetype space = text.indexOf(QLatin1Char(' '));
        if (space < 0)
            out.append({text, QString()});
        else
            out.append({text.left(space), text.mid(space + 1).trimmed()});
        if (out.size() == kMaxReasonCodes)
            break;
    }
    return out.isEmpty() ? defaultReasonCodes() : out;
}

void saveReasonCodes(QSettings& settings, const QList<ReasonCode>& codes)
{
    QStringList entries;
    for (const ReasonCode& r : codes)
        entries.append(displayText(r));
    settings.setValue(kReasonsKey, entries);
}

QString displayText(const ReasonCode& r)
{
    return r.label.isEmpty() ? r.code : r.code + QLatin1Char(' ') + r.label;
}

}  // namespace km::ui
