#pragma once
// Two runs side by side (their steps aligned by stage and ordinal within the stage, with status and speedup, and
// the speedup delta), or two solutions of one task; below, the diff of their final code. Fed with values. GUI thread.

#include "store/RunQuery.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace km::replay {

class DiffView;

// One side of a solution comparison.
struct CompareSolution {
    qint64 id = 0;
    QString taskId;
    QString status;  // the latest verdict's; empty without one
    std::optional<double> speedup;
    QString code;
};

class CompareView : public QWidget {
    Q_OBJECT
public:
    enum Column { StageColumn, OrdinalColumn, StatusA, SpeedupA, StatusB, SpeedupB, SpeedupDelta, ColumnCount };

    explicit CompareView(QWidget* parent = nullptr);

    void setRuns(const RunSummary& a, const QList<StepSummary>& stepsA, const QString& finalCodeA, const RunSummary& b,
                 const QList<StepSummary>& stepsB, const QString& finalCodeB);
    void setSolutions(const CompareSolution& a, const CompareSolution& b);

    QTableWidget* stepTable() const { return m_table; }
    DiffView* diffView() const { return m_diff; }
    QLabel* summaryLabel() const { return m_summary; }

private:
    QLabel* m_summary;
    QTableWidget* m_table;
    DiffView* m_diff;
};

// "+1.23x", "-0.40x"; empty unless both are known.
QString speedupDelta(const std::optional<double>& a, const std::optional<double>& b);

}  // namespace km::replay
