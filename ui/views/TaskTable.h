#pragma once
// The task list's table view: one row per task, columns sized from the font so the title gets the room. GUI thread.

#include <QTableView>

namespace km::ui {

class TaskTable : public QTableView {
    Q_OBJECT
public:
    explicit TaskTable(QWidget* parent = nullptr);
    void setModel(QAbstractItemModel* model) override;  // a TaskTableModel, or a proxy over one
    QString currentTaskId() const;
    void showRow(const QModelIndex& index);  // selects exactly this row; an invalid index: none
};

}  // namespace km::ui
