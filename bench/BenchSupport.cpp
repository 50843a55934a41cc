#include "BenchSupport.h"

#include <QDateTime>
#include <QFile>
#include <QThread>
#include <algorithm>
#include <cmath>

namespace km::bench {

double ms(qint64 ns)
{
    return double(ns) / 1e6;
}
double percentile(QList<qint64> v, double p)
{
    std::sort(v.begin(), v.end());
    const qsizetype rank = qsizetype(std::ceil(p * double(v.size())));
    return v.isEmpty() ? 0 : ms(v[std::clamp<qsizetype>(rank - 1, 0, v.size() - 1)]);
}
double median(QList<qint64> v)
{
    std::sort(v.begin(), v.end());
    const qsizetype n = v.size();
    return n == 0 ? 0 : n % 2 ? ms(v[n / 2]) : (ms(v[n / 2 - 1]) + ms(v[n / 2])) / 2;
}
QString num(double v, int decimals)
{
    return QString::number(v, 'f', decimals);
}
QString mib(qint64 bytes)
{
    return bytes < (qint64(1) << 20) ? num(double(bytes) / 1024.0, 0) + QStringLiteral(" KiB")
                                     : num(double(bytes) / (1024.0 * 1024.0), 1) + QStringLiteral(" MiB");
}

QString procField(const char* file, const char* key)
{
    QFile f(QString::fromLatin1(file));
    if (f.open(QIODevice::ReadOnly))
        for (const QByteArray& line : f.readAll().split('\n'))
            if (line.startsWith(key))
                return QString::fromUtf8(line.mid(line.indexOf(':') + 1)).trimmed();
    return QStringLiteral("?");
}
QString ramGiB()
{
    const double kb = procField("/proc/meminfo", "MemTotal").section(QLatin1Char(' '), 0, 0).toDouble();
    return num(kb / (1024.0 * 1024.0), 1) + QStringLiteral(" GiB");
}

QString machineLine()
{
    return QStringLiteral("%1; %2 cores, %3, RAM %4; Qt %5")
        .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")))
        .arg(QThread::idealThreadCount())
        .arg(procField("/proc/cpuinfo", "model name"), ramGiB(), QString::fromLatin1(qVersion()));
}

void printTable(QTextStream& out, const QStringList& header, const QList<Row>& rows)
{
    qsizetype w[3] = {header[0].size(), header[1].size(), header[2].size()};
    for (const Row& r : rows)
        w[0] = std::max(w[0], r.metric.size()), w[1] = std::max(w[1], r.value.size()),
        w[2] = std::max(w[2], r.target.size());
    const auto line = [&](const QString& a, const QString& b, const QString& c) {
        out << "| " << a.leftJustified(w[0]) << " | " << b.rightJustified(w[1]) << " | " << c.leftJustified(w[2])
            << " |\n";
    };
    line(header[0], header[1], header[2]);
    out << "|" << QString(w[0] + 2, QLatin1Char('-')) << "|" << QString(w[1] + 1, QLatin1Char('-')) << ":|"
        << QString(w[2] + 2, QLatin1Char('-')) << "|\n";
    for (const Row& r : rows)
        line(r.metric, r.value, r.target);
}

}  // namespace km::bench
