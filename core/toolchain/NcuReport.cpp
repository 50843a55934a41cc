#include "toolchain/NcuReport.h"

#include <QHash>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <optional>

namespace km {

namespace {

// Splits one CSV record (ncu quotes every field; "" inside quotes is a quote). False when a quote is not closed.
bool splitCsv(const QString& line, QStringList& out)
{
    out.clear();
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c != QLatin1Char('"'))
                field += c;
            else if (i + 1 < line.size() && line[i + 1] == QLatin1Char('"'))
                field += line[++i];
            else
                quoted = false;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            out << field;
            field.clear();
        } else {
            field += c;
        }
    }
    out << field;
    return !quoted;
}

double numberOf(const QString& text)
{
    QString t = text.trimmed();
    t.remove(QLatin1Char(','));  // thousands separators: "66,304"
    bool ok = false;
    const double d = t.toDouble(&ok);
    return ok ? d : std::nan("");
}

struct Columns {
    qsizetype id = -1, pid = -1, name = -1, block = -1, grid = -1, metric = -1, unit = -1, value = -1;
};

Columns columnsOf(const QStringList& header)
{
    Columns c;
    c.id = header.indexOf(QStringLiteral("ID"));
    c.pid = header.indexOf(QStringLiteral("Process ID"));
    c.name = header.indexOf(QStringLiteral("Kernel Name"));
    c.block = header.indexOf(QStringLiteral("Block Size"));
    c.grid = header.indexOf(QStringLiteral("Grid Size"));
    c.metric = header.indexOf(QStringLiteral("Metric Name"));
    c.unit = header.indexOf(QStringLiteral("Metric Unit"));
    c.value = header.indexOf(QStringLiteral("Metric Value"));
    return c;
}

QString field(const QStringList& fields, qsizetype i)
{
    return i >= 0 ? fields.at(i) : QString();
}

// The metric's value in microseconds; nullopt when missing, not a number or in a unit that is not a time.
std::optional<double> microseconds(const NcuMetric& m)
{
    static const QHash<QString, double> factor{
        {QStringLiteral("ns"), 1e-3},     {QStringLiteral("nsecond"), 1e-3}, {QStringLiteral("us"), 1.0},
        {QStringLiteral("usecond"), 1.0}, {QStringLiteral("ms"), 1e3},       {QStringLiteral("msecond"), 1e3},
        {QStringLiteral("s"), 1e6},       {QStringLiteral("second"), 1e6},
    };
    const auto it = factor.constFind(m.unit.trimmed());
    if (it == factor.cend() || std::isnan(m.value))
        return std::nullopt;
    return m.value * it.value();
}

// A count in `base` units; ncu scales units by default ("Kbyte/block", "Minst", decimal prefixes).
std::optional<qint64> count(const NcuMetric& m, QLatin1String base)
{
    if (std::isnan(m.value))
        return std::nullopt;
    const QString unit = m.unit.section(QLatin1Char('/'), 0, 0).trimmed();
    const qsizetype at = unit.indexOf(base);
    if (!unit.isEmpty() && at < 0)
        return std::nullopt;
    const QString prefix = unit.left(std::max<qsizetype>(at, 0));
    static const QHash<QString, double> factor{
        {QString(), 1.0}, {QStringLiteral("K"), 1e3}, {QStringLiteral("M"), 1e6}, {QStringLiteral("G"), 1e9}};
    const auto it = factor.constFind(prefix);
    if (it == factor.cend())
        return std::nullopt;
    return qRound64(m.value * it.value());
}

}  // namespace

Result<QList<NcuKernel>> parseNcuCsv(const QString& text)
{
    const QStringList lines = text.split(QLatin1Char('\n'));
    QStringList header;
    Columns col;
    QList<NcuKernel> out;
    QHash<QString, qsizetype> launchIndex;  // "ID/Process ID" -> index in out
    QStringList fields;
    QString ncuError;  // ncu's first complaint, for the message when no table follows
    for (qsizetype n = 0; n < lines.size(); ++n) {
        QString line = lines[n];
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        const auto where = [n] {
            return QStringLiteral("line %1 of the Nsight Compute output").arg(n + 1);
        };
        if (line.startsWith(QLatin1String("==ERROR==")) && ncuError.isEmpty())
            ncuError = line;
        if (line.trimmed().isEmpty() || line.startsWith(QLatin1String("==")))  // ==PROF==, ==WARNING==, ==ERROR==
            continue;
        if (header.isEmpty()) {
            // Anything before the header (the program's own output) is skipped.
            if (!line.startsWith(QLatin1String("\"ID\"")) || !splitCsv(line, fields))
                continue;
            header = fields;
            col = columnsOf(header);
            if (col.id < 0 || col.name < 0 || col.metric < 0 || col.unit < 0 || col.value < 0)
                return makeError(ErrorCode::InvalidInput,
                                 where() + QStringLiteral(": the header lacks one of ID, Kernel Name, Metric Name, "
                                                          "Metric Unit, Metric Value (was it run with --csv?)"),
                                 line);
            continue;
        }
        if (!splitCsv(line, fields))
            return makeError(ErrorCode::InvalidInput, where() + QStringLiteral(": a quoted field is not closed"), line);
        if (fields == header)  // a repeated header (one per profiled process)
            continue;
        if (fields.size() != header.size())
            return makeError(
                ErrorCode::InvalidInput,
                where() + QStringLiteral(": %1 fields where the header has %2").arg(fields.size()).arg(header.size()),
                line);
        bool idOk = false;
        const int id = fields[col.id].toInt(&idOk);
        if (!idOk)
            return makeError(ErrorCode::InvalidInput,
                             where() + QStringLiteral(": the launch ID '%1' is not a number").arg(fields[col.id]),
                             line);
        const QString key = fields[col.id] + QLatin1Char('/') + field(fields, col.pid);
        auto it = launchIndex.constFind(key);
        if (it == launchIndex.cend()) {
            it = launchIndex.insert(key, out.size());
            out.append({id, fields[col.name], field(fields, col.block), field(fields, col.grid), {}});
        }
        const QString value = fields[col.value];
        out[it.value()].metrics.insert(fields[col.metric], {fields[col.unit], numberOf(value), value});
    }
    if (header.isEmpty())
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("no header row (\"ID\",…,\"Metric Value\") in the Nsight Compute output") +
                             (ncuError.isEmpty() ? QString() : QStringLiteral("; ncu said: ") + ncuError),
                         text.left(2000));
    return out;
}

QVariantMap ncuKeyFigures(const NcuKernel& k)
{
    QVariantMap out{{QStringLiteral("name"), k.name}};
    const auto metric = [&k](const char* name) -> const NcuMetric* {
        const auto it = k.metrics.constFind(QLatin1String(name));
        return it == k.metrics.cend() ? nullptr : &it.value();
    };
    if (const NcuMetric* m = metric("gpu__time_duration.sum")) {
        if (const auto us = microseconds(*m))
            out.insert(QStringLiteral("duration_us"), *us);
    }
    const std::pair<const char*, const char*> percents[] = {
        {"dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    };
    for (const auto& [key, name] : percents) {
        if (const NcuMetric* m = metric(name); m && !std::isnan(m->value))
            out.insert(QLatin1String(key), m->value);
    }
    const std::tuple<const char*, const char*, QLatin1String> counts[] = {
        {"registers", "launch__registers_per_thread", QLatin1String("register")},
        {"shared_static_bytes", "launch__shared_mem_per_block_static", QLatin1String("byte")},
        {"shared_dynamic_bytes", "launch__shared_mem_per_block_dynamic", QLatin1String("byte")},
        {"local_loads", "smsp__sass_inst_executed_op_local_ld.sum", QLatin1String("inst")},
        {"local_stores", "smsp__sass_inst_executed_op_local_st.sum", QLatin1String("inst")},
    };
    for (const auto& [key, name, base] : counts) {
        const NcuMetric* m = metric(name);
        if (const auto n = m ? count(*m, base) : std::nullopt)
            out.insert(QLatin1String(key), *n);
    }
    return out;
}

QVariantList summariseNcu(const QList<NcuKernel>& kernels)
{
    QStringList names;  // in the order of first launch
    QHash<QString, QList<qsizetype>> launches;
    for (qsizetype i = 0; i < kernels.size(); ++i) {
        if (!launches.contains(kernels[i].name))
            names << kernels[i].name;
        launches[kernels[i].name] << i;
    }
    QVariantList out;
    for (const QString& name : names) {
        QList<double> durations;
        qsizetype longest = launches[name].first();
        double longestUs = -1;
        for (const qsizetype i : launches[name]) {
            const QVariant us = ncuKeyFigures(kernels[i]).value(QStringLiteral("duration_us"));
            if (!us.isValid())
                continue;
            durations << us.toDouble();
            if (us.toDouble() > longestUs) {
                longestUs = us.toDouble();
                longest = i;
            }
        }
        QVariantMap entry = ncuKeyFigures(kernels[longest]);
        entry.insert(QStringLiteral("launches"), launches[name].size());
        entry.insert(QStringLiteral("block"), kernels[longest].block);
        entry.insert(QStringLiteral("grid"), kernels[longest].grid);
        if (!durations.isEmpty()) {
            std::sort(durations.begin(), durations.end());
            const qsizetype mid = durations.size() / 2;
            const double median = durations.size() % 2 ? durations[mid] : (durations[mid - 1] + durations[mid]) / 2.0;
            entry.insert(QStringLiteral("duration_us"), median);
            entry.insert(QStringLiteral("max_duration_us"), longestUs);
        }
        out << entry;
    }
    return out;
}

}  // namespace km
