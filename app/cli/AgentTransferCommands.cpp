// kmosaic agent export / import: agent runs as a trajectory bundle (docs/agent.md, "Trajectory bundles").
#include "cli/AgentCommands.h"
#include "cli/Options.h"
#include "cli/StoreOpener.h"
#include "services/TrajectoryTransfer.h"
#include "store/TaskStore.h"
#include "util/Json.h"

#include <QCoreApplication>

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
    auto report = exportTrajectoryBundle(opened->database(), which.value(), path, p.value(QStringLiteral("label")),
                                         QStringLiteral("kmosaic %1").arg(QCoreApplication::applicationVersion()));
    if (!report) {
        io.err << "kmosaic agent export: " << report.error().message << "\n";
        return Failed;
    }
    for (qint64 id : report->stillRunning)
        io.err << "kmosaic agent export: note: run " << id
               << " is still running; it is exported as it is now and imports as interrupted\n";
    io.out << report->summary() << "\n";
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
    auto bundle = readTrajectoryBundleFile(path);
    if (!bundle) {
        io.err << "kmosaic agent import: " << bundle.error().message << "\n";
        return Failed;
    }
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    const BundleImportReport report = importTrajectoryBundle(opened->database(), bundle.value(), path, defaultActor());
    const bool asJson = p.isSet(QStringLiteral("json"));
    for (const BundleRunOutcome& r : report.runs) {
        const bool failed = r.kind == BundleRunOutcome::Kind::Failed;
        if (asJson) {
            QVariantMap m{{QStringLiteral("run"), qint64(r.index + 1)},
                          {QStringLiteral("task_id"), r.taskId},
                          {QStringLiteral("origin"), r.origin},
                          {QStringLiteral("outcome"), toString(r.kind)},
                          {QStringLiteral("id"), failed ? QVariant() : QVariant(r.runId)}};
            if (failed)
                m.insert(QStringLiteral("error"), r.error);
            io.out << QString::fromUtf8(json::write(m)) << "\n";
        } else if (failed) {
            io.err << "run " << (r.index + 1) << ": failed: " << r.error << "\n";
        } else {
            io.out << "run " << (r.index + 1) << " (" << r.taskId << ", " << r.steps
                   << (r.steps == 1 ? " step): " : " steps): ")
                   << (r.kind == BundleRunOutcome::Kind::Skipped
                           ? QStringLiteral("skipped (already imported as id %1)").arg(r.runId)
                           : QStringLiteral("imported as id %1").arg(r.runId))
                   << "\n";
        }
    }
    if (!asJson)
        io.out << report.summary() << "\n";
    return report.count(BundleRunOutcome::Kind::Failed) > 0 ? Failed : Ok;
}

}  // namespace km::cli
