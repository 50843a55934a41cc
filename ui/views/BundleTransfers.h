#pragma once
// File > Import / Export Trajectory Bundle: the job on its own thread and connection, a progress dialog that
// cancels between runs, and the report naming every run's outcome. The views follow the store's change signal, so
// imported runs appear without a reload. GUI thread.

#include "services/TrajectoryTransfer.h"

#include <QObject>

class QWidget;

namespace km::ui {

class WorkbenchController;

class BundleTransfers : public QObject {
    Q_OBJECT
public:
    BundleTransfers(WorkbenchController& controller, QWidget* window);
    void startImport(const QString& file);
    void startExport(const RunSelection& which, const QString& file, const QString& label);

    // "run 1 (task, 3 steps): imported as id 7", one line per run: the report's details.
    static QString reportLines(const BundleImportReport& report);

Q_SIGNALS:
    void imported(const km::BundleImportReport& report);  // the report dialog is open
    void exported(const km::BundleExportReport& report);

private:
    void showFailure(const QString& title, const QString& message);

    WorkbenchController& m_controller;
    QWidget* m_window;
};

}  // namespace km::ui
