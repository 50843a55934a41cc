#pragma once
// An import or export run on its own thread with its own store connection, reporting progress and cancellable.
// The object itself lives on the GUI thread; its signals arrive there queued.

#include "curate/Importer.h"
#include "services/TrajectoryTransfer.h"

#include <QObject>
#include <QPointer>
#include <QThread>
#include <atomic>
#include <functional>

namespace km::ui {

class TransferJob : public QObject {
    Q_OBJECT
public:
    // An import in two steps, so the user can be asked in between: read the source and find the tasks it would
    // overwrite that were edited since their last import (scanned), then store a batch (importFinished).
    static TransferJob* startScan(const QString& storePath, const QString& source, TaskFormat format, QObject* parent);
    static TransferJob* startImportBatch(const QString& storePath, const ImportBatch& batch, const QString& source,
                                         const QString& actor, QObject* parent);
    static TransferJob* startExport(const QString& storePath, const TaskFilter& filter, TaskFormat format,
                                    const QString& out, QObject* parent);
    // Trajectory bundles (runs with their steps and verdicts): read, check and store each run (bundleImported), or
    // write the selected runs (bundleExported).
    static TransferJob* startBundleImport(const QString& storePath, const QString& file, const QString& actor,
                                          QObject* parent);
    static TransferJob* startBundleExport(const QString& storePath, const RunSelection& which, const QString& file,
                                          const QString& label, QObject* parent);
    ~TransferJob() override;
    void cancel() { m_cancel = true; }  // tasks stored so far stay stored

Q_SIGNALS:
    void progress(int done, int total);
    void scanned(const km::ImportBatch& batch, const QStringList& editedIds);
    void importFinished(const km::ImportReport& report);
    void exportFinished(int count);
    void bundleImported(const km::BundleImportReport& report);
    void bundleExported(const km::BundleExportReport& report);
    void failed(const QString& message);

private:
    explicit TransferJob(QObject* parent);
    void run(std::function<void()> work);

    QPointer<QThread> m_thread;
    std::atomic_bool m_cancel = false;
};

}  // namespace km::ui

Q_DECLARE_METATYPE(km::ImportReport)
Q_DECLARE_METATYPE(km::ImportBatch)
Q_DECLARE_METATYPE(km::BundleImportReport)
Q_DECLARE_METATYPE(km::BundleExportReport)
