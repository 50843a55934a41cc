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
    return loadReasonCodes(settings, kReasonsKey, defaultReasonCodes());
}

void saveReasonCodes(QSettings& settings, const QList<ReasonCode>& codes)
{
    saveReasonCodes(settings, codes, kReasonsKey);
}

QList<ReasonCode> loadReasonCodes(QSettings& settings, const QString& key, const QList<ReasonCode>& defaults)
{
    const QStringList stored = settings.value(key).toStringList();
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
    return out.isEmpty() ? defaults : out;
}

void saveReasonCodes(QSettings& settings, const QList<ReasonCode>& codes, const QString& key)
{
    QStringList entries;
    for (const ReasonCode& r : codes)
        entries.append(displayText(r));
    settings.setValue(key, entries);
}

QString displayText(const ReasonCode& r)
{
    return r.label.isEmpty() ? r.code : r.code + QLatin1Char(' ') + r.label;
}

}  // namespace km::ui
