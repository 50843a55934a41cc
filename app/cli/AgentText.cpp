#include "cli/AgentText.h"

#include "cli/Options.h"
#include "model/VerdictCodec.h"
#include "util/Json.h"

namespace km::cli {

namespace {
QString speedupText(const QVariant& v)
{
    return v.isValid() && !v.isNull() ? QStringLiteral("%1x").arg(v.toDouble(), 0, 'f', 2) : QStringLiteral("-");
}

QVariantMap provenanceOf(const AgentRun& r)
{
    return r.settings.value(QStringLiteral("provenance")).toMap();
}

QString seconds(qint64 ms)
{
    return QStringLiteral("%1s").arg(ms / 1000.0, 0, 'f', 1);
}
}  // namespace

QString stepLine(const AgentRun& run, const TrajectoryStep& s)
{
    return QStringLiteral("run %1 %2 step %3 %4: %5%6 (%7 tokens, reply %8, verify %9)")
        .arg(run.id)
        .arg(run.taskId)
        .arg(s.idx + 1)
        .arg(toString(s.stage), s.status.isEmpty() ? QStringLiteral("no verdict: ") + s.error : s.status,
             s.speedup ? QStringLiteral(" %1x").arg(*s.speedup, 0, 'f', 2) : QString())
        .arg(s.tokensIn + s.tokensOut)
        .arg(seconds(s.latencyMs), seconds(s.verifyMs));
}

QVariantMap runToVariant(const AgentRun& r, int steps)
{
    return {{QStringLiteral("id"), r.id},
            {QStringLiteral("task_id"), r.taskId},
            {QStringLiteral("kind"), r.kind},
            {QStringLiteral("model"), r.model},
            {QStringLiteral("prompt_version"), r.promptVersion},
            {QStringLiteral("settings"), r.settings},
            {QStringLiteral("budgets"), r.budgets},
            {QStringLiteral("totals"), r.totals},
            {QStringLiteral("state"), toString(r.state)},
            {QStringLiteral("stage"), toString(r.stage)},
            {QStringLiteral("owner"), r.owner},
            {QStringLiteral("error"), r.error},
            {QStringLiteral("cancel_requested"), r.cancelRequested},
            {QStringLiteral("best_step_id"), r.bestStepId},
            {QStringLiteral("started_at"), isoUtc(r.startedAt)},
            {QStringLiteral("ended_at"), r.endedAt.isValid() ? QVariant(isoUtc(r.endedAt)) : QVariant()},
            {QStringLiteral("steps"), steps}};
}

QVariantMap stepToVariant(const TrajectoryStep& s)
{
    return {{QStringLiteral("id"), s.id},
            {QStringLiteral("idx"), s.idx},
            {QStringLiteral("stage"), toString(s.stage)},
            {QStringLiteral("template"), s.templateName},
            {QStringLiteral("prompt"), s.prompt},
            {QStringLiteral("reply"), s.reply},
            {QStringLiteral("messages"), s.messages},
            {QStringLiteral("code"), s.code},
            {QStringLiteral("diff"), s.diff},
            {QStringLiteral("error"), s.error},
            {QStringLiteral("guidance"), s.guidance},
            {QStringLiteral("usage"), s.usage},
            {QStringLiteral("tokens_in"), s.tokensIn},
            {QStringLiteral("tokens_out"), s.tokensOut},
            {QStringLiteral("latency_ms"), s.latencyMs},
            {QStringLiteral("verify_ms"), s.verifyMs},
            {QStringLiteral("solution_id"), s.solutionId ? QVariant(s.solutionId) : QVariant()},
            {QStringLiteral("verdict_id"), s.verdictId ? QVariant(s.verdictId) : QVariant()},
            {QStringLiteral("status"), s.status},
            {QStringLiteral("speedup"), s.speedup ? QVariant(*s.speedup) : QVariant()},
            {QStringLiteral("summary"), s.summary},
            {QStringLiteral("created_at"), isoUtc(s.createdAt)}};
}

QStringList runRowHeader()
{
    return {QStringLiteral("RUN"),   QStringLiteral("TASK"),   QStringLiteral("KIND"), QStringLiteral("STATE"),
            QStringLiteral("STEPS"), QStringLiteral("PASSED"), QStringLiteral("BEST"), QStringLiteral("TOKENS"),
            QStringLiteral("TIME"),  QStringLiteral("WHY")};
}

QStringList runRow(const AgentRun& r, int steps)
{
    const QVariantMap& t = r.totals;
    const qint64 tokens =
        t.value(QStringLiteral("tokens_in")).toLongLong() + t.value(QStringLiteral("tokens_out")).toLongLong();
    return {QString::number(r.id),
            r.taskId,
            provenanceOf(r).isEmpty() ? r.kind : QString(r.kind + QStringLiteral(", imported")),
            toString(r.state),
            QString::number(steps),
            t.value(QStringLiteral("passed")).toBool() ? QStringLiteral("yes") : QStringLiteral("no"),
            speedupText(t.value(QStringLiteral("best_speedup"))),
            QString::number(tokens),
            seconds(t.value(QStringLiteral("elapsed_ms")).toLongLong()),
            r.error.isEmpty() ? t.value(QStringLiteral("stop_reason")).toString() : r.error};
}

QString provenanceLine(const AgentRun& r)
{
    const QVariantMap p = provenanceOf(r);
    if (p.isEmpty())
        return {};
    const QString label = p.value(QStringLiteral("label")).toString();
    const auto at = parseIsoUtc(p.value(QStringLiteral("imported_at")).toString());
    return QStringLiteral("provenance: %1 (imported %2)")
        .arg(label.isEmpty() ? QStringLiteral("unlabelled bundle") : label,
             at ? at->toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")) : QStringLiteral("at an unknown time"));
}

void printOutcomes(const QList<AgentOutcome>& outcomes, bool asJson, Io io)
{
    QList<QStringList> rows;
    for (const AgentOutcome& o : outcomes) {
        const int steps = o.run ? o.run->totals.value(QStringLiteral("turns")).toInt() : 0;
        if (asJson) {
            QVariantMap m = o.run ? runToVariant(*o.run, steps) : QVariantMap{{QStringLiteral("task_id"), o.taskId}};
            if (!o.error.isEmpty())
                m.insert(QStringLiteral("error"), o.error);
            io.out << QString::fromUtf8(json::write(m)) << "\n";
        } else if (o.run) {
            rows.append(runRow(*o.run, steps));
        } else {
            rows.append({o.runId ? QString::number(o.runId) : QStringLiteral("-"), o.taskId, QStringLiteral("-"),
                         QStringLiteral("not run"), QStringLiteral("0"), QStringLiteral("no"), QStringLiteral("-"),
                         QStringLiteral("0"), QStringLiteral("-"), o.error});
        }
    }
    if (!asJson)
        io.out << formatTable(runRowHeader(), rows);
    io.out.flush();
}

}  // namespace km::cli
