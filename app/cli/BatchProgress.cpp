#include "cli/BatchProgress.h"

#include <QStringList>
#include <cmath>

namespace km::cli {

void BatchProgress::finished(const QString& status, double atS, double measuringS, const QString& gpu)
{
    if (!gpu.isEmpty()) {
        ++m_gpus[gpu].verdicts;
        m_gpus[gpu].measuringS += measuringS;
    }
    ++m_done;
    m_elapsedS = atS;
    m_measuringS += measuringS;
    ++m_counts[status];
}

double BatchProgress::etaS() const
{
    if (m_done == 0)
        return -1;
    return m_elapsedS / m_done * (m_total - m_done);
}

QString BatchProgress::duration(double seconds)
{
    const qint64 s = qint64(std::llround(std::max(0.0, seconds)));
    if (s < 60)
        return QStringLiteral("%1s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1m%2s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1h%2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QStringList BatchProgress::gpuLines() const
{
    QStringList lines;
    for (auto it = m_gpus.cbegin(); it != m_gpus.cend(); ++it)
        lines << QStringLiteral("%1: %2 verdict(s), measuring during %3% of the wall time")
                     .arg(it.key())
                     .arg(it->verdicts)
                     .arg(m_elapsedS > 0 ? 100.0 * it->measuringS / m_elapsedS : 0.0, 0, 'f', 1);
    return lines;
}

QString BatchProgress::line() const
{
    constexpr int width = 20;
    const int filled = m_total > 0 ? m_done * width / m_total : width;
    QStringList counts;
    for (auto it = m_counts.cbegin(); it != m_counts.cend(); ++it)
        counts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
    QString text = QStringLiteral("[%1/%2] %3% |%4%5|")
                       .arg(m_done)
                       .arg(m_total)
                       .arg(m_total > 0 ? m_done * 100 / m_total : 100)
                       .arg(QString(filled, QLatin1Char('#')), QString(width - filled, QLatin1Char(' ')));
    if (!counts.isEmpty())
        text += QLatin1Char(' ') + counts.join(QStringLiteral(", ")) + QStringLiteral(" |");
    text += QLatin1Char(' ') + duration(m_elapsedS) + QStringLiteral(" elapsed");
    if (m_done < m_total && m_done > 0)
        text += QStringLiteral(", ETA ") + duration(etaS());
    return text;
}

}  // namespace km::cli
