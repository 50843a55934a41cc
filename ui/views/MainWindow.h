#pragma once
// The workbench's main window: the task list with full-text search, and the selected task. GUI thread.

#include <QMainWindow>

class QLineEdit;
class QTableView;
class QTimer;

namespace km {
class TaskStore;
}

namespace km::ui {

class TaskTableModel;
class IdFilterProxyModel;
class TaskDetailView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(TaskStore& store, QWidget* parent = nullptr);

    void reload();  // rereads every summary from the store

private:
    void applySearch();
    void showSelectedTask();
    void reportError(const QString& what, const QString& message);

    TaskStore& m_store;
    TaskTableModel* m_model;
    IdFilterProxyModel* m_proxy;
    QTableView* m_table;
    TaskDetailView* m_detail;
    QLineEdit* m_search;
    QTimer* m_searchDebounce;
};

}  // namespace km::ui
