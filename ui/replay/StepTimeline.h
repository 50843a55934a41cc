#pragma once
// The steps of one run as marks in three lanes (implement, repair, optimise), coloured by verdict status, with the
// speedup under passed steps and the current step outlined. Click or Left/Right/Home/End to pick. GUI thread.

#include "store/RunQuery.h"

#include <QWidget>

namespace km::replay {

class StepTimeline : public QWidget {
    Q_OBJECT
public:
    explicit StepTimeline(QWidget* parent = nullptr);

    void setSteps(const QList<StepSummary>& steps);
    const QList<StepSummary>& steps() const { return m_steps; }
    // The outlined step, by StepSummary::idx; -1 for none.
    void setCurrentIdx(int idx);
    int currentIdx() const { return m_current; }
    // Where the mark of the step at position `pos` of steps() is drawn (for tests and tooltips).
    QRect markRect(int pos) const;
    // The lane a step's mark is in (0 implement, 1 repair, 2 optimise); -1 for an unknown idx.
    int laneOfIdx(int idx) const;
    // The tooltip of the mark at position `pos`: step, stage, status, speedup, summary or error.
    QString markToolTip(int pos) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // The user picked a step (StepSummary::idx).
    void stepClicked(int idx);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    int positionAt(const QPoint& p) const;
    int positionOfIdx(int idx) const;
    void pick(int pos);

    QList<StepSummary> m_steps;
    int m_current = -1;
};

}  // namespace km::replay
