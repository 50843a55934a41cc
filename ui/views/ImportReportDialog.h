#pragma once
// Shows what an import did: counts, and every problem with its file, line and reason. GUI thread.

#include "curate/ImportReport.h"

#include <QDialog>

namespace km::ui {

class ImportReportDialog : public QDialog {
    Q_OBJECT
public:
    ImportReportDialog(const QString& source, const ImportReport& report, QWidget* parent = nullptr);
};

}  // namespace km::ui
