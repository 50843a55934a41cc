// StepTimeline: custom-painted lanes of step marks.
#include "replay/StepTimeline.h"

#include "replay/StepColors.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace km::replay {

namespace {
constexpr int kLabelWidth = 80;
constexpr int kLaneHeight = 40;
constexpr int kTop = 4;
constexpr int kRadius = 8;
constexpr int kMinSpacing = 30;
constexpr int kMaxSpacing = 64;

const char* const kLaneNames[kLaneCount] = {QT_TRANSLATE_NOOP("StepTimeline", "implement"),
                                            QT_TRANSLATE_NOOP("StepTimeline", "repair"),
                                            QT_TRANSLATE_NOOP("StepTimeline", "optimise")};
}  // namespace

StepTimeline::StepTimeline(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setAccessibleName(tr("Step timeline"));
}

void StepTimeline::setSteps(const QList<StepSummary>& steps)
{
    m_steps = steps;
    if (positionOfIdx(m_current) < 0)
        m_current = -1;
    setMinimumWidth(kLabelWidth + kMinSpacing * (int(steps.size()) + 1));  // a long run scrolls (in a scroll area)
    updateGeometry();
    update();
}

void StepTimeline::setCurrentIdx(int idx)
{
    m_current = positionOfIdx(idx) >= 0 ? idx : -1;
    update();
}

int StepTimeline::laneOfIdx(int idx) const
{
    const int pos = positionOfIdx(idx);
    return pos < 0 ? -1 : laneOf(m_steps[pos].stage);
}

QRect StepTimeline::markRect(int pos) const
{
    if (pos < 0 || pos >= m_steps.size())
        return {};
    const int n = int(m_steps.size());
    const int spacing = qBound(kMinSpacing, (width() - kLabelWidth - kMinSpacing) / qMax(1, n), kMaxSpacing);
    const int cx = kLabelWidth + spacing / 2 + pos * spacing;
    const int cy = kTop + laneOf(m_steps[pos].stage) * kLaneHeight + kLaneHeight / 2 - 5;
    return QRect(cx - kRadius, cy - kRadius, 2 * kRadius, 2 * kRadius);
}

QSize StepTimeline::sizeHint() const
{
    return QSize(kLabelWidth + kMaxSpacing * qMax(4, int(m_steps.size())), 2 * kTop + kLaneCount * kLaneHeight);
}

QSize StepTimeline::minimumSizeHint() const
{
    return QSize(kLabelWidth + kMinSpacing * 2, 2 * kTop + kLaneCount * kLaneHeight);
}

void StepTimeline::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    for (int lane = 0; lane < kLaneCount; ++lane) {
        const QRect band(0, kTop + lane * kLaneHeight, width(), kLaneHeight);
        p.fillRect(band, lane % 2 ? pal.base() : pal.alternateBase());
        p.setPen(pal.color(QPalette::Text));
        p.drawText(band.adjusted(6, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, tr(kLaneNames[lane]));
    }
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    for (int pos = 0; pos < m_steps.size(); ++pos) {
        const StepSummary& s = m_steps[pos];
        const QRect r = markRect(pos);
        p.setBrush(statusColor(s.status));
        const bool current = s.idx == m_current;
        p.setPen(current ? QPen(pal.color(QPalette::Highlight), 3) : QPen(pal.color(QPalette::Mid), 1));
        p.drawEllipse(current ? r.adjusted(-2, -2, 2, 2) : r);
        if (s.status == QLatin1String("PASSED") && s.speedup) {
            p.setFont(small);
            p.setPen(pal.color(QPalette::Text));
            p.drawText(QRect(r.center().x() - 30, r.bottom() + 1, 60, 14), Qt::AlignHCenter | Qt::AlignTop,
                       speedupText(s.speedup));
            p.setFont(font());
        }
    }
    if (hasFocus()) {
        p.setPen(QPen(pal.color(QPalette::Highlight), 1, Qt::DotLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

int StepTimeline::positionAt(const QPoint& point) const
{
    for (int pos = 0; pos < m_steps.size(); ++pos)
        if (markRect(pos).adjusted(-4, -4, 4, 4).contains(point))
            return pos;
    return -1;
}

int StepTimeline::positionOfIdx(int idx) const
{
    for (int pos = 0; pos < m_steps.size(); ++pos)
        if (m_steps[pos].idx == idx)
            return pos;
    return -1;
}

void StepTimeline::pick(int pos)
{
    if (pos < 0 || pos >= m_steps.size())
        return;
    setCurrentIdx(m_steps[pos].idx);
    Q_EMIT stepClicked(m_steps[pos].idx);
}

void StepTimeline::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    pick(positionAt(event->position().toPoint()));
}

void StepTimeline::keyPressEvent(QKeyEvent* event)
{
    if (m_steps.isEmpty())
        return QWidget::keyPressEvent(event);
    const int pos = positionOfIdx(m_current);
    const int last = int(m_steps.size()) - 1;
    switch (event->key()) {
    case Qt::Key_Right: pick(pos < 0 ? 0 : qMin(pos + 1, last)); break;
    case Qt::Key_Left: pick(pos < 0 ? 0 : qMax(pos - 1, 0)); break;
    case Qt::Key_Home: pick(0); break;
    case Qt::Key_End: pick(last); break;
    default: return QWidget::keyPressEvent(event);
    }
    event->accept();
}

bool StepTimeline::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int pos = positionAt(help->pos());
        if (pos < 0) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        QToolTip::showText(help->globalPos(), markToolTip(pos), this, markRect(pos));
        return true;
    }
    return QWidget::event(event);
}

QString StepTimeline::markToolTip(int pos) const
{
    if (pos < 0 || pos >= m_steps.size())
        return {};
    const StepSummary& s = m_steps[pos];
    QString text =
        tr("Step %1 (%2): %3").arg(s.idx + 1).arg(toString(s.stage), s.status.isEmpty() ? tr("no verdict") : s.status);
    if (s.speedup)
        text += QStringLiteral(", ") + speedupText(s.speedup);
    if (!s.summary.isEmpty())
        text += QLatin1Char('\n') + s.summary;
    if (!s.error.isEmpty())
        text += QLatin1Char('\n') + s.error;
    return text;
}

}  // namespace km::replay
