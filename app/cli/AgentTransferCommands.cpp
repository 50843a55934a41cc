// kmosaic agent export / import: agent runs as a trajectory bundle (docs/agent.md, "Trajectory bundles").
#include "agent/ProviderFile.h"
#include "agent/TrajectoryBundle.h"
#include "cli/AgentCommands.h"
#include "cli/Options.h"
#include "cli/StoreOpener.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"
#include "util/Json.h"

#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>

namespace km::cli {

namespace {
Result<RunSelection> selection(const QCommandLineParser& p)
{
    RunSelection s;
    const QStringList ids = p.positionalArguments();
    const int ways =
        (ids.isEmpty() ? 0 : 1) + (p.isSet(QStringLiteral("task")) ? 1 : 0) + (p.isSet(QStringLiteral("all")) ? 1 : 0);
    if (ways != 1)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("give run ids, --task ID or --all (one of them)"));
    for (const QString& text : ids) {
        bool ok = false;
        const qint64 id = text.toLongLong(&ok);
        if (!ok || id <= 0)
            return makeError(ErrorCode::InvalidInput, QStringLiteral("'%1' is not a run id").arg(text));
        s.ids.append(id);
    }
    s.taskId = p.value(QStringLiteral("task"));
    return s;
}

Status writeAtomically(const QString& path, const QByteArray& bytes)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return makeError(ErrorCode::Io, QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    return {};
}
}  // namespace

int agentExportCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("task"), QStringLiteral("Every run of this task."), QStringLiteral("ID")});
    p.addOption({QStringLiteral("all"), QStringLiteral("Every run in the store.")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("The bundle to write."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("label"), QStringLiteral("Provenance label the importing store records."),
                 QStringLiteral("TEXT")});
    p.addPositionalArgument(QStringLiteral("id"), QStringLiteral("Runs to export."), QStringLiteral("[ID...]"));
    if (const auto exit = parseOrExit(p, QStringLiteral("agent export"), args, io))
        return *exit;
    auto which = selection(p);
    if (!which) {
        io.err << "kmosaic agent export: " << which.error().message << "\n";
        return Usage;
    }
    const QString path = p.value(QStringLiteral("o"));
    if (path.isEmpty()) {
        io.err << "kmosaic agent export: give the file to write with -o FILE\n";
        return Usage;
    }
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    TaskStore& store = *opened;
    TrajectoryStore trajectories(store.database());
    (void)trajectories.markDeadRunsInterrupted();
    auto runs = trajectories.bundledRuns(which.value());
    if (!runs) {
        io.err << "kmosaic agent export: " << runs.error().message << "\n";
        return Failed;
    }
    if (runs->isEmpty()) {
        io.err << "kmosaic agent export: no agent runs to export"
               << (which->taskId.isEmpty() ? QString() : QStringLiteral(" of task '%1'").arg(which->taskId)) << "\n";
        return Failed;
    }
    TrajectoryBundle bundle;
    bundle.label = p.value(QStringLiteral("label"));
    bundle.exportedAt = QDateTime::currentDateTimeUtc();
    bundle.exportedBy = QStringLiteral("kmosaic %1").arg(QCoreApplication::applicationVersion());
    bundle.runs = std::move(runs).value();
    // Stored text was scrubbed when written; keys the runs' providers name are scrubbed again, should a store
    // written without them hold one.
    const SecretScrubber secrets = recordedProviderSecrets(bundle.runs);
    if (Status st = writeAtomically(path, writeTrajectoryBundle(bundle, secrets)); !st) {
        io.err << "kmosaic agent export: " << st.error().message << "\n";
        return Failed;
    }
    qsizetype steps = 0;
    for (const BundledRun& b : bundle.runs) {
        steps += b.steps.size();
        if (b.run.state == RunState::Running)
            io.err << "kmosaic agent export: note: run " << b.run.id
                   << " is still running; it is exported as it is now and imports as interrupted\n";
    }
    io.out << "exported " << bundle.runs.size() << " run(s), " << steps << " step(s) to " << path << "\n";
    return Ok;
}

int agentImportCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("json"), QStringLiteral("One JSON line per run.")});
    p.addPositionalArgument(QStringLiteral("file"), QStringLiteral("The bundle (kmosaic agent export)."));
    if (const auto exit = parseOrExit(p, QStringLiteral("agent import"), args, io))
        return *exit;
    if (p.positionalArguments().size() != 1) {
        io.err << "kmosaic agent import: give exactly one bundle file\n";
        return Usage;
    }
    const QString path = p.positionalArguments().first();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        io.err << "kmosaic agent import: cannot read " << path << ": " << f.errorString() << "\n";
        return Failed;
    }
    auto bundle = readTrajectoryBundle(f.readAll());
    if (!bundle) {
        io.err << "kmosaic agent import: " << path << ": " << bundle.error().message << "\n";
        return Failed;
    }
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    TaskStore& store = *opened;
    const bool asJson = p.isSet(QStringLiteral("json"));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    TrajectoryStore trajectories(store.database(), recordedProviderSecrets(bundle->runs));
    int imported = 0, skipped = 0, failed = 0;
    for (qsizetype i = 0; i < bundle->runs.size(); ++i) {
        const BundledRun& b = bundle->runs[i];
        auto r = trajectories.importRun(b, bundleProvenance(bundle->label, b.origin, bundle->exportedAt, now),
                                        defaultActor());
        const QString outcome =
            !r ? QStringLiteral("failed") : (r->skipped ? QStringLiteral("skipped") : QStringLiteral("imported"));
        (!r ? failed : r->skipped ? skipped : imported) += 1;
        if (asJson) {
            QVariantMap m{{QStringLiteral("run"), qint64(i + 1)},
                          {QStringLiteral("task_id"), b.run.taskId},
                          {QStringLiteral("origin"), b.origin},
                          {QStringLiteral("outcome"), outcome},
                          {QStringLiteral("id"), r ? QVariant(r->runId) : QVariant()}};
            if (!r)
                m.insert(QStringLiteral("error"), r.error().message);
            io.out << QString::fromUtf8(json::write(m)) << "\n";
        } else if (!r) {
            io.err << "run " << (i + 1) << ": failed: " << r.error().message << "\n";
        } else {
            io.out << "run " << (i + 1) << " (" << b.run.taskId << ", " << b.steps.size()
                   << (b.steps.size() == 1 ? " step): " : " steps): ")
                   << (r->skipped ? QStringLiteral("skipped (already imported as id %1)").arg(r->runId)
                                  : QStringLiteral("imported as id %1").arg(r->runId))
                   << "\n";
        }
    }
    if (!asJson)
        io.out << path << ": " << imported << " imported, " << skipped << " skipped, " << failed << " failed\n";
    return failed > 0 ? Failed : Ok;
}

}  // namespace km::cli
