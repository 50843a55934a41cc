// kmosaic agent list / show / cancel.
#include "cli/AgentCommands.h"
#include "cli/AgentText.h"
#include "cli/Options.h"
#include "cli/StoreOpener.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"
#include "util/Json.h"

namespace km::cli {

namespace {
Result<qint64> runIdArgument(const QCommandLineParser& p)
{
    bool ok = false;
    const qint64 id = p.positionalArguments().value(0).toLongLong(&ok);
    if (!ok || id <= 0 || p.positionalArguments().size() != 1)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("give the id of one run (kmosaic agent list)"));
    return id;
}
}  // namespace

int agentListCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("task"), QStringLiteral("Runs of this task."), QStringLiteral("ID")});
    p.addOption({QStringLiteral("limit"), QStringLiteral("At most N runs."), QStringLiteral("N")});
    p.addOption({QStringLiteral("json"), QStringLiteral("One JSON line per run.")});
    if (const auto exit = parseOrExit(p, QStringLiteral("agent list"), args, io))
        return *exit;
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    TaskStore& store = *opened;
    TrajectoryStore trajectories(store.database());
    (void)trajectories.markDeadRunsInterrupted();
    auto runs = trajectories.runs(p.value(QStringLiteral("task")), p.value(QStringLiteral("limit")).toInt());
    if (!runs) {
        io.err << "kmosaic agent list: " << runs.error().message << "\n";
        return Failed;
    }
    QList<QStringList> rows;
    for (const AgentRun& r : runs.value()) {
        auto steps = trajectories.steps(r.id);
        const int n = steps ? int(steps->size()) : 0;
        if (p.isSet(QStringLiteral("json")))
            io.out << QString::fromUtf8(json::write(runToVariant(r, n))) << "\n";
        else
            rows.append(runRow(r, n));
    }
    if (!p.isSet(QStringLiteral("json")))
        io.out << formatTable(runRowHeader(), rows);
    return Ok;
}

int agentShowCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("json"), QStringLiteral("The run and all its steps as one JSON object.")});
    p.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The run."));
    if (const auto exit = parseOrExit(p, QStringLiteral("agent show"), args, io))
        return *exit;
    auto id = runIdArgument(p);
    if (!id) {
        io.err << "kmosaic agent show: " << id.error().message << "\n";
        return Usage;
    }
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    TaskStore& store = *opened;
    TrajectoryStore trajectories(store.database());
    (void)trajectories.markDeadRunsInterrupted();
    auto run = trajectories.run(id.value());
    auto steps = trajectories.steps(id.value());
    if (!run || !steps) {
        io.err << "kmosaic agent show: " << (!run ? run.error().message : steps.error().message) << "\n";
        return Failed;
    }
    if (!run.value()) {
        io.err << "kmosaic agent show: no agent run with id " << id.value() << "\n";
        return Failed;
    }
    const AgentRun& r = *run.value();
    if (p.isSet(QStringLiteral("json"))) {
        QVariantMap m = runToVariant(r, int(steps->size()));
        QVariantList list;
        for (const TrajectoryStep& s : steps.value())
            list.append(stepToVariant(s));
        m.insert(QStringLiteral("steps"), list);
        io.out << QString::fromUtf8(json::write(m)) << "\n";
        return Ok;
    }
    io.out << "run " << r.id << " on " << r.taskId << " (" << r.kind << ", model " << r.model
           << "): " << toString(r.state) << (r.error.isEmpty() ? QString() : QStringLiteral(": ") + r.error) << "\n"
           << "prompts " << r.promptVersion << "; started " << r.startedAt.toString(Qt::ISODate) << "; "
           << r.totals.value(QStringLiteral("stop_reason")).toString() << "\n";
    if (const QString provenance = provenanceLine(r); !provenance.isEmpty())
        io.out << provenance << "\n";
    if (const auto fork = forkOriginOf(r))
        io.out << "forked from run " << fork->runId << " after step " << fork->steps << "\n";
    io.out << "\n";
    QList<QStringList> rows;
    for (const TrajectoryStep& s : steps.value()) {
        rows.append({QString::number(s.idx + 1), toString(s.stage), s.templateName,
                     s.status.isEmpty() ? QStringLiteral("-") : s.status,
                     s.speedup ? QStringLiteral("%1x").arg(*s.speedup, 0, 'f', 2) : QStringLiteral("-"),
                     QStringLiteral("%1/%2").arg(s.tokensIn).arg(s.tokensOut), QStringLiteral("%1 ms").arg(s.latencyMs),
                     QStringLiteral("%1 ms").arg(s.verifyMs), s.id == r.bestStepId ? QStringLiteral("best") : QString(),
                     s.error.isEmpty() ? s.summary : s.error});
    }
    io.out << formatTable({QStringLiteral("STEP"), QStringLiteral("STAGE"), QStringLiteral("PROMPT"),
                           QStringLiteral("STATUS"), QStringLiteral("SPEEDUP"), QStringLiteral("TOKENS IN/OUT"),
                           QStringLiteral("LATENCY"), QStringLiteral("VERIFY"), QStringLiteral("BEST"),
                           QStringLiteral("DETAIL")},
                          rows);
    return Ok;
}

int agentCancelCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The run."));
    if (const auto exit = parseOrExit(p, QStringLiteral("agent cancel"), args, io))
        return *exit;
    auto id = runIdArgument(p);
    if (!id) {
        io.err << "kmosaic agent cancel: " << id.error().message << "\n";
        return Usage;
    }
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    TaskStore& store = *opened;
    TrajectoryStore trajectories(store.database());
    (void)trajectories.markDeadRunsInterrupted();
    if (Status st = trajectories.requestCancel(id.value()); !st) {
        io.err << "kmosaic agent cancel: " << st.error().message << "\n";
        return Failed;
    }
    io.out << "agent run " << id.value() << ": cancel requested; it stops after its current step\n";
    return Ok;
}

}  // namespace km::cli
