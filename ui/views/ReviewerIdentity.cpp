#include "views/ReviewerIdentity.h"

#include <QInputDialog>
#include <QSettings>

namespace km::ui {

namespace {
const QString kKey = QStringLiteral("reviewer/name");
}

QString configuredReviewer(const QString& fromCommandLine, const QSettings& settings)
{
    if (!fromCommandLine.trimmed().isEmpty())
        return fromCommandLine.trimmed();
    const QString env = qEnvironmentVariable("KMOSAIC_REVIEWER").trimmed();
    if (!env.isEmpty())
        return env;
    return settings.value(kKey).toString().trimmed();
}

void saveReviewer(QSettings& settings, const QString& name)
{
    settings.setValue(kKey, name.trimmed());
    settings.sync();
}

QString askReviewer(QWidget* parent, QSettings& settings, const QString& suggestion)
{
    QInputDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("reviewerDialog"));
    dialog.setWindowTitle(QObject::tr("Reviewer"));
    dialog.setLabelText(QObject::tr("Your name, as every review decision and edit will record it:"));
    dialog.setTextValue(suggestion);
    if (dialog.exec() != QDialog::Accepted || dialog.textValue().trimmed().isEmpty())
        return {};
    saveReviewer(settings, dialog.textValue());
    return dialog.textValue().trimmed();
}

}  // namespace km::ui
