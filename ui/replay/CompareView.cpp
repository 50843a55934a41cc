// CompareView: two runs or two solutions side by side.
#include "replay/CompareView.h"

#include "replay/DiffView.h"
#include "replay/StepColors.h"

#include <QHeaderView>
#include <QLabel>
#include <QMap>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace km::replay {

namespace {

QTableWidgetItem* cell(const QString& text, const QColor& colour = {})
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    if (colour.isValid())
        item->setForeground(colour);
    return item;
}

QString statusText(const QString& status)
{
    return status.isEmpty() ? CompareView::tr("no verdict") : status;
}

QString runLine(const QString& side, const RunSummary& r)
{
    return CompareView::tr("%1: run %2 · %3 · %4 · %5 · %6 · best %7 %8")
        .arg(side)
        .arg(r.id)
        .arg(r.taskId, r.replySource, toString(r.state), stepCountText(r.steps), statusText(r.bestStatus),
             speedupText(r.bestSpeedup));
}

}  // namespace

QString speedupDelta(const std::optional<double>& a, const std::optional<double>& b)
{
    if (!a || !b)
        return {};
    const double d = *b - *a;
    return QStringLiteral("%1%2x").arg(d >= 0 ? QStringLiteral("+") : QString()).arg(d, 0, 'f', 2);
}

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_diff(new DiffView(this))
{
    setObjectName(QStringLiteral("compareView"));
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setHorizontalHeaderLabels(
        {tr("Stage"), tr("#"), tr("A status"), tr("A speedup"), tr("B status"), tr("B speedup"), tr("Δ speedup")});
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_diff);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
}

void CompareView::setRuns(const RunSummary& a, const QList<StepSummary>& stepsA, const QString& finalCodeA,
                          const RunSummary& b, const QList<StepSummary>& stepsB, const QString& finalCodeB)
{
    // Rows: (lane, ordinal within the stage); the two runs' steps meet where both have one.
    QMap<std::pair<int, int>, std::pair<const StepSummary*, const StepSummary*>> rows;
    const auto place = [&rows](const QList<StepSummary>& steps, bool left) {
        QMap<int, int> ordinal;
        for (const StepSummary& s : steps) {
            const int lane = laneOf(s.stage);
            auto& slot = rows[{lane, ordinal[lane]++}];
            (left ? slot.first : slot.second) = &s;
        }
    };
    place(stepsA, true);
    place(stepsB, false);
    m_table->clearContents();
    m_table->setRowCount(int(rows.size()));
    int r = 0;
    for (auto it = rows.cbegin(); it != rows.cend(); ++it, ++r) {
        const StepSummary* sa = it.value().first;
        const StepSummary* sb = it.value().second;
        const Stage stage = (sa ? sa : sb)->stage;
        m_table->setItem(r, StageColumn, cell(toString(stage)));
        m_table->setItem(r, OrdinalColumn, cell(QString::number(it.key().second + 1)));
        m_table->setItem(r, StatusA, sa ? cell(statusText(sa->status), statusColor(sa->status)) : cell(tr("—")));
        m_table->setItem(r, SpeedupA, cell(sa ? speedupText(sa->speedup) : QString()));
        m_table->setItem(r, StatusB, sb ? cell(statusText(sb->status), statusColor(sb->status)) : cell(tr("—")));
        m_table->setItem(r, SpeedupB, cell(sb ? speedupText(sb->speedup) : QString()));
        m_table->setItem(r, SpeedupDelta, cell(sa && sb ? speedupDelta(sa->speedup, sb->speedup) : QString()));
    }
    QString summary = runLine(tr("A"), a) + QLatin1Char('\n') + runLine(tr("B"), b);
    const QString delta = speedupDelta(a.bestSpeedup, b.bestSpeedup);
    if (!delta.isEmpty())
        summary += QLatin1Char('\n') + tr("best speedup B − A: %1").arg(delta);
    if (a.bestStatus != b.bestStatus)
        summary +=
            QLatin1Char('\n') + tr("best status: %1 → %2").arg(statusText(a.bestStatus), statusText(b.bestStatus));
    m_summary->setText(summary);
    m_diff->setTexts(tr("run %1, final code").arg(a.id), finalCodeA, tr("run %1, final code").arg(b.id), finalCodeB);
}

void CompareView::setSolutions(const CompareSolution& a, const CompareSolution& b)
{
    m_table->clearContents();
    m_table->setRowCount(1);
    m_table->setItem(0, StageColumn, cell(tr("solution")));
    m_table->setItem(0, OrdinalColumn, cell(QStringLiteral("%1 / %2").arg(a.id).arg(b.id)));
    m_table->setItem(0, StatusA, cell(statusText(a.status), statusColor(a.status)));
    m_table->setItem(0, SpeedupA, cell(speedupText(a.speedup)));
    m_table->setItem(0, StatusB, cell(statusText(b.status), statusColor(b.status)));
    m_table->setItem(0, SpeedupB, cell(speedupText(b.speedup)));
    m_table->setItem(0, SpeedupDelta, cell(speedupDelta(a.speedup, b.speedup)));
    QString summary = tr("A: solution %1 of %2 · %3 %4\nB: solution %5 of %6 · %7 %8")
                          .arg(a.id)
                          .arg(a.taskId, statusText(a.status), speedupText(a.speedup))
                          .arg(b.id)
                          .arg(b.taskId, statusText(b.status), speedupText(b.speedup));
    const QString delta = speedupDelta(a.speedup, b.speedup);
    if (!delta.isEmpty())
        summary += QLatin1Char('\n') + tr("speedup B − A: %1").arg(delta);
    m_summary->setText(summary);
    m_diff->setTexts(tr("solution %1").arg(a.id), a.code, tr("solution %1").arg(b.id), b.code);
}

}  // namespace km::replay
