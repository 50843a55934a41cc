#pragma once
// The "?" dialog: every review action with its key and what it does. GUI thread.

#include "review/ReasonCodes.h"
#include "review/ShortcutMap.h"

#include <QDialog>

class QTableWidget;

namespace km::ui {

class ShortcutHelpDialog : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutHelpDialog(QWidget* parent = nullptr);
    void setContent(const ShortcutMap& map, const QList<ReasonCode>& reasons);

    enum Column { ActionColumn, KeyColumn, DescriptionColumn };

private:
    QTableWidget* m_table;
};

// What an action is called where reason codes are known: "Reason 1: R1 unclear spec".
QString actionText(ReviewAction a, const QList<ReasonCode>& reasons);
// A key as a user reads it; "none" when the action has no key.
QString keyText(const QKeySequence& key);

}  // namespace km::ui
