#pragma once
// Who reviews: the name on every decision and edit of the workbench. --reviewer, else $KMOSAIC_REVIEWER, else the
// name saved in the settings ("reviewer/name"); when none is set (the first start) the workbench asks. GUI thread.

#include <QString>

class QSettings;
class QWidget;

namespace km::ui {

QString configuredReviewer(const QString& fromCommandLine, const QSettings& settings);  // empty: ask
void saveReviewer(QSettings& settings, const QString& name);
// A dialog (object name "reviewerDialog") suggesting `suggestion`; saves and returns the name, empty when cancelled.
QString askReviewer(QWidget* parent, QSettings& settings, const QString& suggestion);

}  // namespace km::ui
