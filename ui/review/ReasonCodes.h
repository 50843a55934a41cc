#pragma once
// The reason codes a reviewer picks with the digit keys: a short code (stored with the review) and a label.
// Values, read from and written to a QSettings the caller passes in.

#include <QList>
#include <QString>

class QSettings;

namespace km::ui {

struct ReasonCode {
    QString code;   // "R1": what the review row and the audit log store
    QString label;  // "unclear spec"
    bool operator==(const ReasonCode&) const = default;
};

inline constexpr int kMaxReasonCodes = 9;  // one per digit key

QList<ReasonCode> defaultReasonCodes();
// "review/reasons": a list of "CODE label" strings, in digit order. Missing or empty: the defaults; more than nine:
// the first nine; an entry without a code is dropped.
QList<ReasonCode> loadReasonCodes(QSettings& settings);
void saveReasonCodes(QSettings& settings, const QList<ReasonCode>& codes);
// The same for another list of its own (solution review: "solutions/reasons"), with its own defaults.
QList<ReasonCode> loadReasonCodes(QSettings& settings, const QString& key, const QList<ReasonCode>& defaults);
void saveReasonCodes(QSettings& settings, const QList<ReasonCode>& codes, const QString& key);
QString displayText(const ReasonCode& r);  // "R1 unclear spec"

}  // namespace km::ui
