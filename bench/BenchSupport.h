#pragma once
// Shared by the benchmark programs: statistics over timings, machine facts, and the result table.

#include <QList>
#include <QString>
#include <QStringList>
#include <QTextStream>

namespace km::bench {

double ms(qint64 ns);
double percentile(QList<qint64> v, double p);  // nearest rank, in ms; p = 0.5 gives the lower median
double median(QList<qint64> v);                // in ms
QString num(double v, int decimals);
QString mib(qint64 bytes);
QString procField(const char* file, const char* key);  // a "key: value" line of a /proc file
QString ramGiB();
QString machineLine();  // date, cores, CPU, RAM, Qt

struct Row {
    QString metric, value, target;
};
void printTable(QTextStream& out, const QStringList& header, const QList<Row>& rows);

}  // namespace km::bench
