// SpeedupChart: the run's speedups as a Qt Charts line chart.
#include "replay/SpeedupChart.h"

#include "replay/StepColors.h"

#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QValueAxis>

namespace km::replay {

SpeedupChart::SpeedupChart(QWidget* parent)
    : QChartView(parent)
    , m_speedup(new QLineSeries)
    , m_best(new QLineSeries)
    , m_reference(new QLineSeries)
    , m_points(new QScatterSeries)
    , m_currentMark(new QScatterSeries)
    , m_x(new QValueAxis)
    , m_y(new QValueAxis)
{
    auto* c = new QChart;
    c->setMargins(QMargins(4, 4, 4, 4));
    c->legend()->setAlignment(Qt::AlignRight);  // beside the plot: at 720 px high the height is what is short
    m_speedup->setName(tr("speedup"));
    m_best->setName(tr("best so far"));
    m_reference->setName(tr("1x"));
    m_points->setName(tr("step"));
    m_points->setMarkerSize(10);
    m_currentMark->setName(tr("current"));
    m_currentMark->setMarkerSize(18);
    m_currentMark->setColor(Qt::transparent);
    m_currentMark->setBorderColor(palette().color(QPalette::Highlight));
    QPen refPen(Qt::gray, 1, Qt::DashLine);
    m_reference->setPen(refPen);
    QPen bestPen(QColor(0x2e, 0x9d, 0x4f), 2);
    m_best->setPen(bestPen);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(m_reference), static_cast<QAbstractSeries*>(m_speedup),
                               static_cast<QAbstractSeries*>(m_best), static_cast<QAbstractSeries*>(m_points),
                               static_cast<QAbstractSeries*>(m_currentMark)})
        c->addSeries(s);
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_y->setTitleText(tr("speedup ×"));
    c->addAxis(m_x, Qt::AlignBottom);
    c->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s : c->series()) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    c->legend()->markers(m_currentMark).constFirst()->setVisible(false);
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(160);
    setAccessibleName(tr("Speedup chart"));
    setSteps({});
}

QPointF SpeedupChart::valueOf(const StepSummary& s) const
{
    return QPointF(s.idx + 1, s.speedup.value_or(0.0));
}

void SpeedupChart::setSteps(const QList<StepSummary>& steps)
{
    m_steps = steps;
    QList<QPointF> speedup, best, points;
    std::optional<double> bestSoFar;
    double top = 1.5;
    for (const StepSummary& s : steps) {
        points << valueOf(s);
        if (s.speedup) {
            speedup << valueOf(s);
            top = qMax(top, *s.speedup);
        }
        if (s.status == QLatin1String("PASSED") && s.speedup)
            bestSoFar = qMax(bestSoFar.value_or(0.0), *s.speedup);
        if (bestSoFar)
            best << QPointF(s.idx + 1, *bestSoFar);
    }
    m_speedup->replace(speedup);
    m_best->replace(best);
    m_points->replace(points);
    m_points->clearPointsConfiguration();
    for (int i = 0; i < steps.size(); ++i)
        m_points->setPointConfiguration(i, QXYSeries::PointConfiguration::Color, statusColor(steps[i].status));
    const int n = qMax(1, int(steps.size()));
    m_reference->replace({QPointF(0.5, 1.0), QPointF(n + 0.5, 1.0)});
    m_x->setRange(0.5, n + 0.5);
    m_x->setTickCount(qMin(n, 10) + 1);
    m_y->setRange(0.0, top * 1.1);
    setCurrentIdx(m_current);
}

void SpeedupChart::setCurrentIdx(int idx)
{
    m_current = -1;
    QList<QPointF> mark;
    for (const StepSummary& s : m_steps)
        if (s.idx == idx) {
            m_current = idx;
            mark << valueOf(s);
        }
    m_currentMark->replace(mark);
}

QPoint SpeedupChart::pointPosition(int idx) const
{
    for (const StepSummary& s : m_steps)
        if (s.idx == idx) {
            const QPointF scene = chart()->mapToScene(chart()->mapToPosition(valueOf(s), m_points));
            return mapFromScene(scene);
        }
    return QPoint(-1, -1);
}

int SpeedupChart::stepAt(const QPoint& viewportPos) const
{
    const QPointF value = chart()->mapToValue(chart()->mapFromScene(mapToScene(viewportPos)), m_points);
    int nearest = -1;
    double distance = 0.5;  // half the distance between two steps
    for (const StepSummary& s : m_steps) {
        const double d = qAbs(value.x() - (s.idx + 1));
        if (d < distance) {
            distance = d;
            nearest = s.idx;
        }
    }
    return chart()->plotArea().contains(chart()->mapFromScene(mapToScene(viewportPos))) ? nearest : -1;
}

void SpeedupChart::mousePressEvent(QMouseEvent* event)
{
    const int idx = stepAt(event->position().toPoint());
    if (idx >= 0 && event->button() == Qt::LeftButton) {
        setCurrentIdx(idx);
        Q_EMIT stepClicked(idx);
        event->accept();
        return;
    }
    QChartView::mousePressEvent(event);
}

}  // namespace km::replay
