#pragma once
// The "?" list: every action of the menu bar that has a key (tasks, review, runs, replay, solutions), with its
// menu, its keys and what it does, searchable. Read from the menus when opened, so it lists the keys as they are
// (a review key the user remapped shows its new key). GUI thread.

#include <QDialog>
#include <QList>

class QLineEdit;
class QMenuBar;
class QTableWidget;

namespace km::ui {

struct KeyRow {
    QString menu;         // "Review", "Run > Step"
    QString action;       // without mnemonics: "Next Step"
    QString keys;         // "Right, J"
    QString description;  // the action's status tip, else its tool tip when it says more than its text
    bool operator==(const KeyRow&) const = default;
};

// Every enabled or disabled action with at least one key, in menu order; separators and key-less actions left out.
QList<KeyRow> keyRows(const QMenuBar* bar);

class KeyListDialog : public QDialog {
    Q_OBJECT
public:
    explicit KeyListDialog(QWidget* parent = nullptr);
    void setRows(const QList<KeyRow>& rows);
    enum Column { MenuColumn, ActionColumn, KeysColumn, DescriptionColumn };

private:
    void applyFilter(const QString& text);
    QLineEdit* m_filter;
    QTableWidget* m_table;
};

}  // namespace km::ui
