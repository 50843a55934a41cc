#pragma once
// Pure parser of Nsight Compute's CSV output (`ncu --csv --metrics ...`: one row per kernel launch and metric) and
// the few figures a reviewer reads from it. Any thread.

#include "util/Result.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QVariantList>
#include <QVariantMap>

namespace km {

struct NcuMetric {
    QString unit;      // as ncu printed it: "ns", "%", "byte/block", "register/thread", "inst"
    double value = 0;  // the number with thousands separators removed; NaN when the text is not a number ("n/a")
    QString text;      // the value as printed: "66,304"
};

// One profiled kernel launch.
struct NcuKernel {
    int id = 0;     // ncu's launch ID
    QString name;   // demangled, with the parameter list: "column_max_kernel(const float *, float *, long)"
    QString block;  // "(256, 1, 1)"
    QString grid;   // "(32, 128, 1)"
    QMap<QString, NcuMetric> metrics;  // by metric name: "gpu__time_duration.sum"
};

// Launches in the order ncu reported them. An Error (with the line number) when there is no header row, the header
// lacks a column the parser needs, or a row has a different number of fields than the header.
Result<QList<NcuKernel>> parseNcuCsv(const QString& text);

// {name, duration_us, dram_pct, sm_pct, achieved_occupancy_pct, registers, shared_static_bytes,
// shared_dynamic_bytes, local_loads, local_stores}; a figure whose metric is missing or not a number is left out.
// Local loads and stores are the sign of register spills.
QVariantMap ncuKeyFigures(const NcuKernel& k);

// One entry per distinct kernel name, in the order of first launch: the figures of its longest launch, with
// duration_us the median over its launches, max_duration_us, launches, and the longest launch's block and grid.
QVariantList summariseNcu(const QList<NcuKernel>& kernels);

}  // namespace km
