// StepChooser: pick the compared step.
#include "replay/StepChooser.h"

#include "replay/StepColors.h"

#include <QDialogButtonBox>
#include <QListWidget>
#include <QVBoxLayout>

namespace km::replay {

StepChooser::StepChooser(const QList<StepSummary>& steps, qint64 currentStepId, QWidget* parent)
    : QDialog(parent)
    , m_list(new QListWidget(this))
{
    setObjectName(QStringLiteral("stepChooser"));
    setWindowTitle(tr("Compare with"));
    m_list->setObjectName(QStringLiteral("stepChooserList"));
    auto* previous = new QListWidgetItem(tr("The previous step"), m_list);
    previous->setData(Qt::UserRole, qint64(0));
    m_list->setCurrentItem(previous);
    for (const StepSummary& s : steps) {
        auto* item = new QListWidgetItem(
            tr("Step %1 (%2) %3 %4")
                .arg(s.idx + 1)
                .arg(toString(s.stage), s.status.isEmpty() ? tr("no verdict") : s.status, speedupText(s.speedup)),
            m_list);
        item->setData(Qt::UserRole, s.id);
        item->setForeground(statusColor(s.status));
        if (s.id == currentStepId)
            m_list->setCurrentItem(item);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_list);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemActivated, this, &QDialog::accept);
    connect(this, &QDialog::accepted, this, [this] {
        if (QListWidgetItem* item = m_list->currentItem())
            Q_EMIT chosen(item->data(Qt::UserRole).toLongLong());
    });
}

}  // namespace km::replay
