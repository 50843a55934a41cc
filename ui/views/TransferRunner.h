#pragma once
// Runs imports and exports for the window: progress, the question before a re-import overwrites tasks edited in
// the workbench, the report naming every task changed, then a reload of the list. GUI thread; the work runs on
// TransferJob threads.

#include "curate/Importer.h"

#include <QObject>

class QProgressDialog;
class QWidget;

namespace km::ui {

class WorkbenchController;

class TransferRunner : public QObject {
    Q_OBJECT
public:
    TransferRunner(WorkbenchController& controller, QWidget* window);
    void startImport(const QString& path, TaskFormat format);
    void startExport(const QString& out, TaskFormat format);

Q_SIGNALS:
    void importDone(const km::ImportReport& report);  // after the list reloaded; not sent when cancelled or failed

private:
    void askBeforeOverwriting(const QString& path, ImportBatch batch, const QStringList& edited,
                              QProgressDialog* progress);
    void store(const QString& path, const ImportBatch& batch, const QStringList& kept, QProgressDialog* progress);
    void showFailure(const QString& path, const QString& message);

    WorkbenchController& m_controller;
    QWidget* m_window;
};

}  // namespace km::ui
