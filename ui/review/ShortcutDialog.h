#pragma once
// Remaps the review keys, one key editor per action; a key another action holds is refused with a message.
// Edits a copy: the caller applies map() when the dialog is accepted. GUI thread.

#include "review/ReasonCodes.h"
#include "review/ShortcutMap.h"

#include <QDialog>

class QKeySequenceEdit;
class QLabel;
class QTableWidget;

namespace km::ui {

class ShortcutDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutDialog(const ShortcutMap& map, const QList<ReasonCode>& reasons, QWidget* parent = nullptr);

    const ShortcutMap& map() const { return m_map; }
    // What the key editor of an action does when the user finishes a key: applies it or refuses it.
    bool tryKey(ReviewAction a, const QKeySequence& key);

private:
    void showKeys();

    ShortcutMap m_map;
    QTableWidget* m_table;
    QLabel* m_message;
    QList<QKeySequenceEdit*> m_edits;  // catalogue order
};

}  // namespace km::ui
