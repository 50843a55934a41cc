#pragma once
// An import or export run on its own thread with its own store connection, reporting progress and cancellable.
// The object itself lives on the GUI thread; its signals arrive there queued.

#include "curate/Importer.h"

#include <QObject>
#include <QPointer>
#include <QThread>
#include <atomic>
#include <functional>

namespace km::ui {

class TransferJob : public QObject {
    Q_OBJECT
public:
    static TransferJob* startImport(const QString& storePath, const QString& source, TaskFormat format,
                                    const QString& actor, QObject* parent);
    static TransferJob* startExport(const QString& storePath, const TaskFilter& filter, TaskFormat format,
                                    const QString& out, QObject* parent);
    ~TransferJob() override;
    void cancel() { m_cancel = true; }  // tasks stored so far stay stored

Q_SIGNALS:
    void progress(int done, int total);
    void importFinished(const km::ImportReport& report);
    void exportFinished(int count);
    void failed(const QString& message);

private:
    explicit TransferJob(QObject* parent);
    void run(std::function<void()> work);

    QPointer<QThread> m_thread;
    std::atomic_bool m_cancel = false;
};

}  // namespace km::ui

Q_DECLARE_METATYPE(km::ImportReport)
