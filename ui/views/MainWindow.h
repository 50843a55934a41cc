#pragma once
// The workbench's main window: builds the task table with search and facet filters, the task view and the review
// panel in docks (layout saved and restored), and wires them to the WorkbenchController, which holds the state.
// GUI thread.

#include "curate/Importer.h"

#include <QMainWindow>

class QDockWidget;
class QLabel;
class QLineEdit;
class QSettings;
class QTimer;

namespace km::ui {

class FilterPanel;
class ReviewPanel;
class TaskDetailView;
class TaskTable;
class TransferRunner;
class WorkbenchController;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // controller and settings (the layout, review keys, the reviewer's name) outlive the window.
    MainWindow(WorkbenchController& controller, QSettings& settings, QWidget* parent = nullptr);
    ~MainWindow() override;

    WorkbenchController& controller() const { return m_controller; }
    void saveLayout();                        // also done on close
    void setSearchText(const QString& text);  // applies at once (typing in the box waits for a pause)
    TransferRunner* transfers() const { return m_transfers; }
    void changeReviewer();  // asks for the reviewer's name

protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildDocks();
    void buildMenus();
    void connectController();
    void chooseImport(TaskFormat format);
    void chooseExport(TaskFormat format);
    void showCurrentTask();
    void syncSelection();
    bool settleUnsavedEdits();  // false: the user chose to stay
    bool saveEdits();

    WorkbenchController& m_controller;
    QSettings& m_settings;
    TaskTable* m_table;
    TaskDetailView* m_detail;
    FilterPanel* m_filters;
    QLineEdit* m_search;
    QTimer* m_searchDebounce;
    ReviewPanel* m_reviewPanel;
    TransferRunner* m_transfers;
    QLabel* m_reviewer;
    QDockWidget* m_taskDock = nullptr;
    QDockWidget* m_reviewDock = nullptr;
};

}  // namespace km::ui
