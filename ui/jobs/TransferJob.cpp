#include "jobs/TransferJob.h"

#include "store/TaskStore.h"

#include <QCoreApplication>
#include <QThread>

namespace km::ui {

TransferJob::TransferJob(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<km::ImportReport>();
    qRegisterMetaType<km::ImportBatch>();
    qRegisterMetaType<km::BundleImportReport>();
    qRegisterMetaType<km::BundleExportReport>();
}

TransferJob::~TransferJob()
{
    if (m_thread && !m_thread->isRunning() && !m_thread->isFinished()) {
        delete m_thread;  // never started (see run()): nothing would delete it
    } else if (m_thread) {
        m_cancel = true;
        m_thread->wait();  // the work checks m_cancel between chunks; a chunk is short
    }
}

void TransferJob::run(std::function<void()> work)
{
    m_thread = QThread::create(std::move(work));
    m_thread->setObjectName(QStringLiteral("kmosaic-transfer"));
    connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
    // Started from the event loop, not here: the caller connects to the job's signals after start*() returns, and a
    // quick job (an import of unchanged tasks) could otherwise finish and signal before anyone listens.
    QMetaObject::invokeMethod(
        this,
        [thread = m_thread] {
            if (thread)
                thread->start();
        },
        Qt::QueuedConnection);
}

TransferJob* TransferJob::startScan(const QString& storePath, const QString& source, TaskFormat format, QObject* parent)
{
    auto* job = new TransferJob(parent);
    job->run([job, storePath, source, format] {
        auto store = TaskStore::open(storePath);
        if (!store) {
            Q_EMIT job->failed(store.error().message);
            return;
        }
        ImportBatch batch = readTasks(source, format);
        auto edited = editedSinceImport(*store.value(), batch.tasks);
        if (edited)
            Q_EMIT job->scanned(batch, edited.value());
        else
            Q_EMIT job->failed(edited.error().message);
    });
    return job;
}

TransferJob* TransferJob::startImportBatch(const QString& storePath, const ImportBatch& batch, const QString& source,
                                           const QString& actor, QObject* parent)
{
    auto* job = new TransferJob(parent);
    job->run([job, storePath, batch, source, actor] {
        auto store = TaskStore::open(storePath);
        if (!store) {
            Q_EMIT job->failed(store.error().message);
            return;
        }
        auto report = importBatch(*store.value(), batch, source, actor, [job](int done, int total) {
            Q_EMIT job->progress(done, total);
            return !job->m_cancel.load();
        });
        if (report)
            Q_EMIT job->importFinished(report.value());
        else
            Q_EMIT job->failed(report.error().message);
    });
    return job;
}

TransferJob* TransferJob::startExport(const QString& storePath, const TaskFilter& filter, TaskFormat format,
                                      const QString& out, QObject* parent)
{
    auto* job = new TransferJob(parent);
    job->run([job, storePath, filter, format, out] {
        auto store = TaskStore::open(storePath);
        if (!store) {
            Q_EMIT job->failed(store.error().message);
            return;
        }
        auto n = exportTasks(*store.value(), filter, format, out);
        if (n)
            Q_EMIT job->exportFinished(n.value());
        else
            Q_EMIT job->failed(n.error().message);
    });
    return job;
}

TransferJob* TransferJob::startBundleImport(const QString& storePath, const QString& file, const QString& actor,
                                            QObject* parent)
{
    auto* job = new TransferJob(parent);
    job->run([job, storePath, file, actor] {
        auto bundle = readTrajectoryBundleFile(file);
        if (!bundle) {
            Q_EMIT job->failed(bundle.error().message);
            return;
        }
        auto store = TaskStore::open(storePath);
        if (!store) {
            Q_EMIT job->failed(store.error().message);
            return;
        }
        Q_EMIT job->progress(0, int(bundle->runs.size()));
        Q_EMIT job->bundleImported(
            importTrajectoryBundle(store.value()->database(), bundle.value(), file, actor, [job](int done, int total) {
                Q_EMIT job->progress(done, total);
                return !job->m_cancel.load();
            }));
    });
    return job;
}

TransferJob* TransferJob::startBundleExport(const QString& storePath, const RunSelection& which, const QString& file,
                                            const QString& label, QObject* parent)
{
    auto* job = new TransferJob(parent);
    const QString by = QStringLiteral("kmosaic-workbench %1").arg(QCoreApplication::applicationVersion());
    job->run([job, storePath, which, file, label, by] {
        auto store = TaskStore::open(storePath);
        if (!store) {
            Q_EMIT job->failed(store.error().message);
            return;
        }
        auto report = exportTrajectoryBundle(store.value()->database(), which, file, label, by);
        if (report)
            Q_EMIT job->bundleExported(report.value());
        else
            Q_EMIT job->failed(report.error().message);
    });
    return job;
}

}  // namespace km::ui
