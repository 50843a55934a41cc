#include "views/BundleTransfers.h"

#include "controller/WorkbenchController.h"
#include "jobs/TransferJob.h"

#include <QMessageBox>
#include <QProgressDialog>
#include <QWidget>

namespace km::ui {

BundleTransfers::BundleTransfers(WorkbenchController& controller, QWidget* window)
    : QObject(window)
    , m_controller(controller)
    , m_window(window)
{
}

QString BundleTransfers::reportLines(const BundleImportReport& report)
{
    QStringList lines;
    for (const BundleRunOutcome& r : report.runs) {
        const QString head = tr("run %1 (%2, %3): ")
                                 .arg(r.index + 1)
                                 .arg(r.taskId, r.steps == 1 ? tr("1 step") : tr("%1 steps").arg(r.steps));
        switch (r.kind) {
        case BundleRunOutcome::Kind::Imported: lines.append(head + tr("imported as run %1").arg(r.runId)); break;
        case BundleRunOutcome::Kind::Skipped:
            lines.append(head + tr("skipped: already stored as run %1").arg(r.runId));
            break;
        case BundleRunOutcome::Kind::Failed: lines.append(head + tr("failed: %1").arg(r.error)); break;
        }
    }
    return lines.join(QLatin1Char('\n'));
}

void BundleTransfers::startImport(const QString& file)
{
    auto* progress = new QProgressDialog(tr("Importing runs from %1…").arg(file), tr("Cancel"), 0, 0, m_window);
    progress->setObjectName(QStringLiteral("bundleProgress"));
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    auto* job = TransferJob::startBundleImport(m_controller.storePath(), file, m_controller.reviewer(), this);
    connect(progress, &QProgressDialog::canceled, job, &TransferJob::cancel);
    connect(job, &TransferJob::progress, progress, [progress](int done, int total) {
        progress->setMaximum(total);
        progress->setValue(done);
    });
    connect(job, &TransferJob::bundleImported, this, [this, job, progress](const BundleImportReport& report) {
        job->deleteLater();
        progress->close();
        const int failed = report.count(BundleRunOutcome::Kind::Failed);
        auto* box = new QMessageBox(failed > 0 ? QMessageBox::Warning : QMessageBox::Information,
                                    tr("Trajectory bundle imported"), report.summary(), QMessageBox::Ok, m_window);
        box->setObjectName(QStringLiteral("bundleReport"));
        box->setInformativeText(report.label.isEmpty() ? tr("No provenance label.")
                                                       : tr("Provenance label: %1").arg(report.label));
        box->setDetailedText(reportLines(report));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        Q_EMIT m_controller.message(report.summary());
        Q_EMIT imported(report);
    });
    connect(job, &TransferJob::failed, this, [this, job, progress](const QString& message) {
        job->deleteLater();
        progress->close();
        showFailure(tr("Import failed"), message);
    });
}

void BundleTransfers::startExport(const RunSelection& which, const QString& file, const QString& label)
{
    auto* job = TransferJob::startBundleExport(m_controller.storePath(), which, file, label, this);
    connect(job, &TransferJob::bundleExported, this, [this, job](const BundleExportReport& report) {
        job->deleteLater();
        QString text = report.summary();
        if (!report.stillRunning.isEmpty())
            text +=
                tr(" (%1 still running: exported as they are now)")
                    .arg(report.stillRunning.size() == 1 ? tr("1 run") : tr("%1 runs").arg(report.stillRunning.size()));
        Q_EMIT m_controller.message(text);
        Q_EMIT exported(report);
    });
    connect(job, &TransferJob::failed, this, [this, job](const QString& message) {
        job->deleteLater();
        showFailure(tr("Export failed"), message);
    });
}

void BundleTransfers::showFailure(const QString& title, const QString& message)
{
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, m_window);
    box->setObjectName(QStringLiteral("bundleFailure"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

}  // namespace km::ui
