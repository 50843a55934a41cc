#pragma once
// The workbench's main window: the task list with search and facet filters, the task view and the review panel in
// docks whose layout is saved and restored. GUI thread.

#include "curate/Importer.h"
#include "store/TaskQuery.h"

#include <QMainWindow>

class QLineEdit;
class QSettings;
class QTableView;
class QTimer;

namespace km {
class TaskStore;
}

namespace km::ui {

class FilterPanel;
class ReviewPanel;
class ReviewSession;
class TaskDetailView;
class TaskFilterProxyModel;
class TaskTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // settings holds the window layout; it outlives the window.
    MainWindow(TaskStore& store, QSettings& settings, QWidget* parent = nullptr);

    void reload();                       // rereads every summary from the store
    void saveLayout();                   // also done on close
    QStringList visibleTaskIds() const;  // the current filter's rows, in display order
    void selectTask(const QString& id);
    void setSearchText(const QString& text);  // applies at once (typing in the box waits for a pause)
    FilterPanel* filterPanel() const { return m_filters; }
    // Imports on a worker thread with a progress dialog, then shows the report and reloads the list.
    void startImport(const QString& path, TaskFormat format);
    void startExport(const QString& out, TaskFormat format);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void chooseImport(TaskFormat format);
    void chooseExport(TaskFormat format);
    void applySearch();
    void filtersChanged();
    void connectReview();
    void refreshTask(const QString& id);  // one row from the store, after a decision
    void showSelectedTask();
    void showTask(const QString& id);
    bool settleUnsavedEdits();  // false: the user chose to stay
    bool saveEdits();
    void saveShown(const QString& taskId, PresentationSet shown);
    void reportError(const QString& what, const QString& message);

    TaskStore& m_store;
    QSettings& m_settings;
    TaskTableModel* m_model;
    TaskFilterProxyModel* m_proxy;
    QTableView* m_table;
    TaskDetailView* m_detail;
    FilterPanel* m_filters;
    QLineEdit* m_search;
    QTimer* m_searchDebounce;
    bool m_queueUpdatePending = false;
    void scheduleQueueUpdate();
    ReviewSession* m_review;
    ReviewPanel* m_reviewPanel;
    QString m_shownTaskId;  // the task in the detail view
};

}  // namespace km::ui
