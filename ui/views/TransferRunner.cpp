#include "views/TransferRunner.h"

#include "controller/WorkbenchController.h"
#include "jobs/TransferJob.h"
#include "views/ImportReportDialog.h"

#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSet>
#include <QWidget>

namespace km::ui {

TransferRunner::TransferRunner(WorkbenchController& controller, QWidget* window)
    : QObject(window)
    , m_controller(controller)
    , m_window(window)
{
}

void TransferRunner::startImport(const QString& path, TaskFormat format)
{
    auto* progress = new QProgressDialog(tr("Importing %1…").arg(path), tr("Cancel"), 0, 0, m_window);
    progress->setObjectName(QStringLiteral("importProgress"));
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    auto* job = TransferJob::startScan(m_controller.storePath(), path, format, this);
    connect(progress, &QProgressDialog::canceled, job, &TransferJob::cancel);
    connect(job, &TransferJob::scanned, this,
            [this, job, path, progress](const ImportBatch& batch, const QStringList& edited) {
                job->deleteLater();
                if (progress->wasCanceled()) {
                    progress->close();
                    return;
                }
                if (edited.isEmpty())
                    store(path, batch, {}, progress);
                else
                    askBeforeOverwriting(path, batch, edited, progress);
            });
    connect(job, &TransferJob::failed, this, [this, job, path, progress](const QString& message) {
        job->deleteLater();
        progress->close();
        showFailure(path, message);
    });
}

void TransferRunner::askBeforeOverwriting(const QString& path, ImportBatch batch, const QStringList& edited,
                                          QProgressDialog* progress)
{
    auto* ask = new QMessageBox(QMessageBox::Warning, tr("Overwrite edits?"),
                                tr("%n task(s) in %1 were edited in the workbench since their last import. "
                                   "Importing replaces those edits with the files' content.",
                                   nullptr, int(edited.size()))
                                    .arg(path),
                                QMessageBox::NoButton, m_window);
    ask->setObjectName(QStringLiteral("overwriteEdits"));
    ask->setDetailedText(edited.join(QLatin1Char('\n')));
    ask->setInformativeText(tr("Edited: %1")
                                .arg(edited.mid(0, 8).join(QStringLiteral(", ")) +
                                     (edited.size() > 8 ? tr(" and %1 more").arg(edited.size() - 8) : QString())));
    QPushButton* keep = ask->addButton(tr("Keep My Edits"), QMessageBox::AcceptRole);
    keep->setObjectName(QStringLiteral("keepEdits"));
    ask->addButton(tr("Overwrite"), QMessageBox::DestructiveRole)->setObjectName(QStringLiteral("overwrite"));
    ask->addButton(QMessageBox::Cancel)->setObjectName(QStringLiteral("cancelImport"));
    ask->setDefaultButton(keep);
    ask->setAttribute(Qt::WA_DeleteOnClose);
    connect(ask, &QMessageBox::finished, this, [this, ask, path, batch, edited, progress]() mutable {
        const QMessageBox::ButtonRole role = ask->buttonRole(ask->clickedButton());
        if (role == QMessageBox::RejectRole || !ask->clickedButton()) {
            progress->close();
            Q_EMIT m_controller.message(tr("Import of %1 cancelled: nothing changed").arg(path));
            return;
        }
        QStringList kept;
        if (role == QMessageBox::AcceptRole) {  // keep the edits: leave those tasks out of the batch
            const QSet<QString> skip(edited.cbegin(), edited.cend());
            QList<Task> rest;
            for (const Task& t : batch.tasks)
                if (skip.contains(t.id))
                    kept.append(t.id);
                else
                    rest.append(t);
            batch.tasks = rest;
        }
        store(path, batch, kept, progress);
    });
    ask->open();
}

void TransferRunner::store(const QString& path, const ImportBatch& batch, const QStringList& kept,
                           QProgressDialog* progress)
{
    auto* job = TransferJob::startImportBatch(m_controller.storePath(), batch, path, m_controller.reviewer(), this);
    connect(progress, &QProgressDialog::canceled, job, &TransferJob::cancel);
    connect(job, &TransferJob::progress, progress, [progress](int done, int total) {
        progress->setMaximum(total);
        progress->setValue(done);
    });
    connect(job, &TransferJob::importFinished, this, [this, job, path, kept, progress](const ImportReport& report) {
        job->deleteLater();
        progress->close();
        m_controller.reload();
        auto* dialog = new ImportReportDialog(path, report, kept, m_window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
        Q_EMIT m_controller.message(tr("Imported %1: %2 new, %3 updated, %4 skipped, %5 edited kept")
                                        .arg(path)
                                        .arg(report.created)
                                        .arg(report.updated)
                                        .arg(report.skipped)
                                        .arg(kept.size()));
        Q_EMIT importDone(report);
    });
    connect(job, &TransferJob::failed, this, [this, job, path, progress](const QString& message) {
        job->deleteLater();
        progress->close();
        m_controller.reload();  // what was stored before the failure stays stored
        showFailure(path, message);
    });
}

void TransferRunner::startExport(const QString& out, TaskFormat format)
{
    TaskFilter filter;
    filter.ids = m_controller.visibleTaskIds();
    if (filter.ids.isEmpty()) {
        Q_EMIT m_controller.message(tr("No task to export: the filter shows none"));
        return;
    }
    auto* job = TransferJob::startExport(m_controller.storePath(), filter, format, out, this);
    connect(job, &TransferJob::exportFinished, this, [this, job, out](int n) {
        job->deleteLater();
        Q_EMIT m_controller.message(tr("Exported %1 task(s) to %2").arg(n).arg(out));
    });
    connect(job, &TransferJob::failed, this, [this, job](const QString& message) {
        job->deleteLater();
        QMessageBox::warning(m_window, tr("Export failed"), message);
    });
}

void TransferRunner::showFailure(const QString& path, const QString& message)
{
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Import failed"),
                                tr("Import of %1 failed:\n%2").arg(path, message), QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

}  // namespace km::ui
