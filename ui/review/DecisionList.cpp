#include "review/DecisionList.h"

#include "review/ReviewSession.h"

namespace km::ui {

DecisionList::DecisionList(QWidget* parent) : QListWidget(parent)
{
    setObjectName(QStringLiteral("recentList"));
    auto revisit = [this](QListWidgetItem* item) {
        Q_EMIT revisitRequested(item->data(Qt::UserRole).toString());
    };
    connect(this, &QListWidget::itemActivated, this, revisit);
    connect(this, &QListWidget::itemClicked, this, revisit);
}

void DecisionList::showDecisions(const QList<SessionDecision>& decisions)
{
    clear();
    for (qsizetype i = decisions.size() - 1; i >= 0 && i >= decisions.size() - kShown; --i) {
        const ReviewRecord& r = decisions.at(i).record;
        QString text = QStringLiteral("%1  %2 → %3")
                           .arg(r.at.toLocalTime().toString(QStringLiteral("HH:mm:ss")), r.taskId, statusText(r.to));
        if (!r.reason.isEmpty())
            text += QStringLiteral("  (%1)").arg(r.reason);
        if (!r.comment.isEmpty())
            text += QStringLiteral("  “%1”").arg(r.comment.simplified().left(60));
        if (decisions.at(i).undone)
            text += tr("  — undone");
        auto* item = new QListWidgetItem(text, this);
        item->setData(Qt::UserRole, r.taskId);
        if (decisions.at(i).undone)
            item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
    }
}

QString DecisionList::taskIdAt(int row) const
{
    const QListWidgetItem* it = item(row);
    return it ? it->data(Qt::UserRole).toString() : QString();
}

}  // namespace km::ui
