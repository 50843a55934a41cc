#include "agent/Feedback.h"

#include <QVariantList>

namespace km {

namespace {
QString num(const QVariant& v, int precision = 3)
{
    return v.isValid() && !v.isNull() ? QString::number(v.toDouble(), 'g', precision) : QStringLiteral("?");
}

QString tail(const QString& text, int maxChars)
{
    return text.size() <= maxChars ? text : QStringLiteral("…") + text.right(maxChars);
}

QString diagnostics(const Verdict& v)
{
    QStringList out;
    int shown = 0;
    for (const QString& severity : {QStringLiteral("error"), QStringLiteral("warning"), QStringLiteral("note")}) {
        for (const SolutionDiagnostic& d : v.diagnostics) {
            if (d.severity != severity || shown >= 12)
                continue;
            ++shown;
            const QString where = d.line > 0 ? QStringLiteral("line %1").arg(d.line)
                                             : QStringLiteral("%1:%2").arg(d.generatedFile).arg(d.generatedLine);
            out << QStringLiteral("%1: %2: %3").arg(where, d.severity, d.message.trimmed());
        }
    }
    if (v.diagnostics.size() > shown)
        out << QStringLiteral("(%1 more messages)").arg(v.diagnostics.size() - shown);
    return out.join(QLatin1Char('\n'));
}

QString failure(const Verdict& v)
{
    const QVariantMap f = v.evidence.value(QStringLiteral("failure")).toMap();
    if (f.isEmpty())
        return {};
    QString line = QStringLiteral("Configuration %1, seed %2")
                       .arg(f.value(QStringLiteral("config")).toString(), num(f.value(QStringLiteral("seed")), 12));
    if (f.contains(QStringLiteral("max_abs")) || f.contains(QStringLiteral("max_rel")))
        line += QStringLiteral(": max abs error %1, max rel error %2")
                    .arg(num(f.value(QStringLiteral("max_abs"))), num(f.value(QStringLiteral("max_rel"))));
    if (f.contains(QStringLiteral("mismatches")))
        line += QStringLiteral(", %1 mismatching elements").arg(num(f.value(QStringLiteral("mismatches")), 12));
    const QString message = f.value(QStringLiteral("message")).toString().trimmed();
    return message.isEmpty() ? line : line + QStringLiteral("\n") + message;
}

QString error(const Verdict& v)
{
    const QVariantMap e = v.evidence.value(QStringLiteral("error")).toMap();
    if (e.isEmpty())
        return {};
    QString text = QStringLiteral("%1: %2").arg(e.value(QStringLiteral("kind")).toString(),
                                                e.value(QStringLiteral("message")).toString().trimmed());
    const QString tb = e.value(QStringLiteral("traceback")).toString().trimmed();
    return tb.isEmpty() ? text : text + QStringLiteral("\n") + tail(tb, 2000);
}

QString findings(const Verdict& v, QStringList& checks)
{
    QStringList lines;
    for (const Finding& f : v.findings) {
        if (f.severity == Finding::Severity::Error)
            checks << f.check;
        lines << QStringLiteral("%1 (%2%3): %4")
                     .arg(f.check, toString(f.severity),
                          f.line > 0 ? QStringLiteral(", line %1").arg(f.line) : QString(), f.message.trimmed());
    }
    return lines.join(QLatin1Char('\n'));
}

void timing(const Verdict& v, std::optional<double> best, Feedback& fb)
{
    const QVariantMap t = v.evidence.value(QStringLiteral("timing")).toMap();
    const QVariantMap sol = t.value(QStringLiteral("solution_ms")).toMap();
    const QVariantMap ref = t.value(QStringLiteral("reference_ms")).toMap();
    std::optional<double> speedup = v.speedup;
    if (!speedup && t.contains(QStringLiteral("speedup")))
        speedup = t.value(QStringLiteral("speedup")).toDouble();
    if (!speedup && sol.isEmpty())
        return;
    auto spread = [](const QVariantMap& m) {
        return QStringLiteral("%1 ms (q1 %2, q3 %3)")
            .arg(num(m.value(QStringLiteral("median"))), num(m.value(QStringLiteral("q1"))),
                 num(m.value(QStringLiteral("q3"))));
    };
    QString line =
        QStringLiteral("On %1: your solution %2, the reference %3")
            .arg(t.value(QStringLiteral("device"), QStringLiteral("the device")).toString(), spread(sol), spread(ref));
    if (speedup)
        line += QStringLiteral("; speedup %1x").arg(*speedup, 0, 'f', 2);
    const QVariantList ci = t.value(QStringLiteral("speedup_ci95")).toList();
    if (ci.size() == 2)
        line += QStringLiteral(" (95% interval %1 to %2)").arg(num(ci[0]), num(ci[1]));
    fb.timing = line + QLatin1Char('.');
    if (best && speedup)
        fb.best = *speedup >= *best ? QStringLiteral("%1x: this version is the best so far.").arg(*best, 0, 'f', 2)
                                    : QStringLiteral("%1x, faster than this version.").arg(*best, 0, 'f', 2);
}

QString profile(const Verdict& v)
{
    QStringList out;
    const QVariantMap p = v.evidence.value(QStringLiteral("profile")).toMap();
    if (!p.isEmpty()) {
        out << QStringLiteral("%1% of the GPU time is in your own kernels.")
                   .arg(p.value(QStringLiteral("own_kernel_share")).toDouble() * 100, 0, 'f', 1);
        const QVariantList kernels = p.value(QStringLiteral("kernels")).toList();
        for (qsizetype i = 0; i < std::min<qsizetype>(5, kernels.size()); ++i) {
            const QVariantMap m = kernels[i].toMap();
            out << QStringLiteral("- %1: %2 ms%3")
                       .arg(m.value(QStringLiteral("name")).toString(), num(m.value(QStringLiteral("ms"))),
                            m.value(QStringLiteral("own")).toBool() ? QStringLiteral(" (yours)") : QString());
        }
    }
    const QVariantList ncu = v.evidence.value(QStringLiteral("ncu")).toMap().value(QStringLiteral("kernels")).toList();
    if (!ncu.isEmpty())
        out << QStringLiteral("Nsight Compute:");
    for (qsizetype i = 0; i < std::min<qsizetype>(5, ncu.size()); ++i) {
        const QVariantMap m = ncu[i].toMap();
        out << QStringLiteral("- %1: %2 us, DRAM %3% of peak, SM %4%, occupancy %5%, %6 registers, block %7, grid %8")
                   .arg(m.value(QStringLiteral("name")).toString(), num(m.value(QStringLiteral("duration_us"))),
                        num(m.value(QStringLiteral("dram_pct"))), num(m.value(QStringLiteral("sm_pct"))),
                        num(m.value(QStringLiteral("achieved_occupancy_pct"))),
                        num(m.value(QStringLiteral("registers"))), m.value(QStringLiteral("block")).toString(),
                        m.value(QStringLiteral("grid")).toString());
    }
    return out.join(QLatin1Char('\n'));
}

QString cut(const QString& s, int maxChars)
{
    return s.size() <= maxChars ? s : s.left(maxChars) + QStringLiteral("\n(cut at %1 characters)").arg(maxChars);
}
}  // namespace

QString Feedback::text() const
{
    QStringList parts{QStringLiteral("Verdict: ") + status +
                      (summary.isEmpty() ? QString() : QStringLiteral(" (") + summary + QLatin1Char(')'))};
    const QList<QPair<QString, QString>> sections{{QStringLiteral("Compiler diagnostics"), diagnostics},
                                                  {QStringLiteral("Failing configuration"), failure},
                                                  {QStringLiteral("Error"), error},
                                                  {QStringLiteral("Integrity findings"), findings},
                                                  {QStringLiteral("Timing"), timing},
                                                  {QStringLiteral("Best so far"), best},
                                                  {QStringLiteral("Profile"), profile}};
    for (const auto& [title, body] : sections)
        if (!body.isEmpty())
            parts << title + QStringLiteral(":\n") + body;
    return parts.join(QStringLiteral("\n\n"));
}

Feedback feedbackFor(const Verdict& verdict, std::optional<double> bestSpeedup, int maxChars)
{
    Feedback fb;
    fb.status = toString(verdict.status);
    fb.summary = verdict.summary;
    if (verdict.status != VerdictStatus::Passed)
        fb.failureStatus = fb.status;
    fb.diagnostics = cut(diagnostics(verdict), maxChars);
    fb.failure = cut(failure(verdict), maxChars);
    fb.error = cut(error(verdict), maxChars);
    fb.findings = cut(findings(verdict, fb.checks), maxChars);
    timing(verdict, bestSpeedup, fb);
    fb.profile = cut(profile(verdict), maxChars);
    return fb;
}

}  // namespace km
