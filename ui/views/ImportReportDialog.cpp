#include "views/ImportReportDialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QVBoxLayout>

namespace km::ui {

ImportReportDialog::ImportReportDialog(const QString& source, const ImportReport& r, const QStringList& kept,
                                       QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("importReport"));
    setWindowTitle(tr("Import of %1").arg(source));
    auto* summary = new QLabel(tr("<b>%1 new, %2 updated, %3 unchanged, %4 skipped</b>")
                                   .arg(r.created)
                                   .arg(r.updated)
                                   .arg(r.unchanged)
                                   .arg(r.skipped),
                               this);
    summary->setObjectName(QStringLiteral("importSummary"));
    // Every task the import touched, by name: an update may have replaced text someone relied on.
    QStringList lines;
    for (const QString& id : r.updatedIds)
        lines.append(tr("updated\t%1").arg(id));
    for (const QString& id : r.createdIds)
        lines.append(tr("new\t%1").arg(id));
    for (const QString& id : kept)
        lines.append(tr("kept\t%1 (edited in the workbench; not overwritten)").arg(id));
    auto* changes = new QPlainTextEdit(lines.join(QLatin1Char('\n')), this);
    changes->setObjectName(QStringLiteral("importChanges"));
    changes->setReadOnly(true);
    changes->setVisible(!lines.isEmpty());
    auto* issues = new QTableWidget(int(r.issues.size()), 4, this);
    issues->setObjectName(QStringLiteral("importIssues"));
    issues->setHorizontalHeaderLabels({tr("Severity"), tr("File"), tr("Line"), tr("Reason")});
    issues->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    issues->setEditTriggers(QAbstractItemView::NoEditTriggers);
    issues->verticalHeader()->hide();
    for (int i = 0; i < r.issues.size(); ++i) {
        const ImportIssue& issue = r.issues[i];
        const bool error = issue.severity == ImportIssue::Severity::Error;
        issues->setItem(i, 0, new QTableWidgetItem(error ? tr("error") : tr("warning")));
        issues->setItem(i, 1, new QTableWidgetItem(issue.file));
        issues->setItem(i, 2, new QTableWidgetItem(issue.line > 0 ? QString::number(issue.line) : QString()));
        issues->setItem(i, 3, new QTableWidgetItem(issue.reason));
        if (error)
            issues->item(i, 0)->setForeground(Qt::red);
    }
    issues->resizeColumnsToContents();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary);
    layout->addWidget(changes, 1);
    if (r.issues.isEmpty())
        issues->hide();
    layout->addWidget(issues, 1);
    layout->addWidget(buttons);
    resize(900, r.issues.isEmpty() && lines.isEmpty() ? 120 : 420);
}

}  // namespace km::ui
