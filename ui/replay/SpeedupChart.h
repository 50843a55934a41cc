#pragma once
// Speedup per step and the best passed speedup so far, over the steps of one run (Qt Charts), with a 1x reference
// line; each step is a point coloured by status (0 without a measurement); a click picks the nearest step and the
// current step is ringed. GUI thread.

#include "store/RunQuery.h"

#include <QChartView>

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace km::replay {

class SpeedupChart : public QChartView {
    Q_OBJECT
public:
    explicit SpeedupChart(QWidget* parent = nullptr);

    void setSteps(const QList<StepSummary>& steps);
    void setCurrentIdx(int idx);
    int currentIdx() const { return m_current; }

    // The step whose point is nearest (along x) to a viewport position; -1 when none is near.
    int stepAt(const QPoint& viewportPos) const;
    // Where the step's point is drawn, in viewport coordinates; (-1, -1) for an unknown idx.
    QPoint pointPosition(int idx) const;

    QLineSeries* speedupSeries() const { return m_speedup; }
    QLineSeries* bestSeries() const { return m_best; }
    QScatterSeries* pointSeries() const { return m_points; }

Q_SIGNALS:
    void stepClicked(int idx);

protected:
    void mousePressEvent(QMouseEvent* event) override;

private:
    QPointF valueOf(const StepSummary& s) const;

    QList<StepSummary> m_steps;
    int m_current = -1;
    QLineSeries* m_speedup;
    QLineSeries* m_best;
    QLineSeries* m_reference;
    QScatterSeries* m_points;
    QScatterSeries* m_currentMark;
    QValueAxis* m_x;
    QValueAxis* m_y;
};

}  // namespace km::replay
