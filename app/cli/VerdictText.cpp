#include "cli/VerdictText.h"

#include "model/VerdictCodec.h"
#include "util/Json.h"

namespace km::cli {

namespace {
QString number(double d, int precision = 4)
{
    return QString::number(d, 'g', precision);
}

QString msText(const std::optional<double>& ms)
{
    return ms ? number(*ms) + QStringLiteral(" ms") : QStringLiteral("-");
}

// "key=value, ..." with nested values as JSON: the environment in one line.
QString oneLine(const QVariantMap& m)
{
    QStringList parts;
    for (auto it = m.cbegin(); it != m.cend(); ++it) {
        const QVariant& v = it.value();
        const bool nested = v.typeId() == QMetaType::QVariantMap || v.typeId() == QMetaType::QVariantList;
        parts << it.key() + QLatin1Char('=') + (nested ? QString::fromUtf8(json::write(v)) : v.toString());
    }
    return parts.join(QStringLiteral(", "));
}

// "  gpu: GPU 1 (NVIDIA H200, GPU-..., 00000000:19:00.0)\n" when the multi-GPU executor recorded one.
QString gpuLine(const QVariantMap& gpu)
{
    if (gpu.isEmpty())
        return {};
    QString line =
        QStringLiteral("  gpu: GPU %1 (%2, %3, %4)")
            .arg(gpu.value(QStringLiteral("index")).toString(), gpu.value(QStringLiteral("name")).toString(),
                 gpu.value(QStringLiteral("uuid")).toString(), gpu.value(QStringLiteral("pci_bus_id")).toString());
    const QVariantMap health = gpu.value(QStringLiteral("health_check")).toMap();
    if (!health.isEmpty())
        line += QStringLiteral("; health check %1: %2")
                    .arg(health.value(QStringLiteral("healthy")).toBool() ? QStringLiteral("passed")
                                                                          : QStringLiteral("FAILED"),
                         health.value(QStringLiteral("message")).toString());
    if (gpu.value(QStringLiteral("retried")).toBool())
        line += QStringLiteral("; retried here after another GPU failed");
    return line + QLatin1Char('\n');
}

void printTrials(const QVariantMap& evidence, QTextStream& out)
{
    const QVariantList trials = evidence.value(QStringLiteral("trials")).toList();
    if (!trials.isEmpty())
        out << "trials:\n";
    for (const QVariant& t : trials) {
        const QVariantMap m = t.toMap();
        out << "  " << m.value(QStringLiteral("config")).toString() << " seed "
            << m.value(QStringLiteral("seed")).toString()
            << (m.value(QStringLiteral("rerun")).toBool() ? " (re-run)" : "") << ": ";
        if (m.contains(QStringLiteral("max_abs")))
            out << "max abs error " << number(m.value(QStringLiteral("max_abs")).toDouble(), 3) << ", max rel error "
                << number(m.value(QStringLiteral("max_rel")).toDouble(), 3) << ", ";
        out << (m.value(QStringLiteral("ok")).toBool()
                    ? QStringLiteral("ok")
                    : QStringLiteral("FAILED ") + m.value(QStringLiteral("message")).toString())
            << "\n";
    }
    for (const QVariant& s : evidence.value(QStringLiteral("configs_skipped")).toList())
        out << "  skipped " << s.toMap().value(QStringLiteral("name")).toString() << ": "
            << s.toMap().value(QStringLiteral("reason")).toString() << "\n";
    const QVariantMap build = evidence.value(QStringLiteral("build")).toMap();
    if (!build.isEmpty())
        out << "build: " << (build.value(QStringLiteral("ok")).toBool() ? "ok" : "FAILED") << ", "
            << number(build.value(QStringLiteral("seconds")).toDouble(), 3) << " s"
            << (build.value(QStringLiteral("cached")).toBool() ? " (cached)" : "") << "\n";
    const QVariantMap profile = evidence.value(QStringLiteral("profile")).toMap();
    if (profile.contains(QStringLiteral("own_kernel_share")))
        out << "profile: " << number(100.0 * profile.value(QStringLiteral("own_kernel_share")).toDouble(), 3)
            << "% of GPU time in the solution's own kernels\n";
    const QVariantMap failure = evidence.value(QStringLiteral("failure")).toMap();
    if (!failure.isEmpty())
        out << "failure: " << failure.value(QStringLiteral("config")).toString() << " seed "
            << failure.value(QStringLiteral("seed")).toString() << ": "
            << failure.value(QStringLiteral("message")).toString() << "\n";
    const QVariantMap error = evidence.value(QStringLiteral("error")).toMap();
    if (!error.isEmpty())
        out << "error (" << error.value(QStringLiteral("kind")).toString()
            << "): " << error.value(QStringLiteral("message")).toString() << "\n";
}

// Median and interquartile range of one side of the harness's timing object.
QString spread(const QVariantMap& side)
{
    const double q1 = side.value(QStringLiteral("q1")).toDouble();
    const double q3 = side.value(QStringLiteral("q3")).toDouble();
    return QStringLiteral("median %1 ms, IQR %2 ms (%3 to %4)")
        .arg(number(side.value(QStringLiteral("median")).toDouble()), number(q3 - q1, 3), number(q1), number(q3));
}

void printTiming(const Verdict& v, QTextStream& out)
{
    const QVariantMap timing = v.evidence.value(QStringLiteral("timing")).toMap();
    if (timing.isEmpty()) {
        if (v.runtimeMs || v.refRuntimeMs || v.speedup)
            out << "timing: solution " << msText(v.runtimeMs) << ", reference " << msText(v.refRuntimeMs)
                << ", speedup " << speedupText(v.speedup) << "\n";
        return;
    }
    out << "timing (" << timing.value(QStringLiteral("device")).toString() << ", "
        << timing.value(QStringLiteral("runs")).toString() << " runs):\n";
    for (const auto& [label, key] : {std::pair{"solution ", "solution_ms"}, std::pair{"reference", "reference_ms"}}) {
        const QVariantMap side = timing.value(QLatin1String(key)).toMap();
        if (!side.isEmpty())
            out << "  " << label << "  " << spread(side) << "\n";
    }
    const QVariant speedup = timing.value(QStringLiteral("speedup"));
    const QVariantList ci = timing.value(QStringLiteral("speedup_ci95")).toList();
    if (speedup.isValid()) {
        out << "  speedup    " << number(speedup.toDouble(), 3) << "x";
        if (ci.size() == 2)
            out << " (95% CI " << number(ci[0].toDouble(), 3) << " to " << number(ci[1].toDouble(), 3) << ")";
        out << "\n";
    }
}
}  // namespace

QString speedupText(const std::optional<double>& s)
{
    return s ? number(*s, 3) + QLatin1Char('x') : QStringLiteral("-");
}

void printVerdict(const Verdict& v, const QString& taskId, QTextStream& out)
{
    // A verdict of `kmosaic verify --no-store` (or of a bare reference) has no id and no stored solution.
    out << "verdict " << (v.id > 0 ? QString::number(v.id) : QStringLiteral("(not stored)")) << ": "
        << toString(v.status) << "\n"
        << "  task: " << taskId << (v.solutionId > 0 ? QStringLiteral(", solution %1").arg(v.solutionId) : QString())
        << "\n"
        << "  created: " << isoUtc(v.createdAt) << "\n"
        << "  harness: " << v.harnessVersion << ", executor: " << v.executor << "\n"
        << "  isolation: " << v.isolation << "\n"
        << gpuLine(v.evidence.value(QStringLiteral("gpu")).toMap()) << "  environment: " << oneLine(v.environment)
        << "\n";
    if (!v.summary.isEmpty())
        out << "  summary: " << v.summary << "\n";
    if (!v.findings.isEmpty())
        out << "findings:\n";
    for (const Finding& f : v.findings)
        out << "  " << toString(f.severity) << " " << f.check
            << (f.line > 0 ? QStringLiteral(" at line %1").arg(f.line) : QString()) << ": " << f.message << "\n";
    if (!v.diagnostics.isEmpty())
        out << "diagnostics:\n";
    for (const SolutionDiagnostic& d : v.diagnostics)
        out << "  " << d.severity << " "
            << (d.line > 0 ? QStringLiteral("at solution line %1").arg(d.line) : QStringLiteral("(no solution line)"))
            << " [" << d.generatedFile << ":" << d.generatedLine << "]: " << d.message << "\n";
    printTrials(v.evidence, out);
    printTiming(v, out);
}

}  // namespace km::cli
