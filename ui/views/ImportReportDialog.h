#pragma once
// Shows what an import did: counts, every task it added or changed (and those it left alone to keep edits made in
// the workbench), and every problem with its file, line and reason. GUI thread.

#include "curate/ImportReport.h"

#include <QDialog>

namespace km::ui {

class ImportReportDialog : public QDialog {
    Q_OBJECT
public:
    ImportReportDialog(const QString& source, const ImportReport& report, const QStringList& kept = {},
                       QWidget* parent = nullptr);
};

}  // namespace km::ui
