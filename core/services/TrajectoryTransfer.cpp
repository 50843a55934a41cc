// Trajectory bundles in and out of a store: the file, the runs one by one, the report.
#include "services/TrajectoryTransfer.h"

#include "agent/ProviderFile.h"
#include "store/Database.h"
#include "util/Resources.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QSqlQuery>

namespace km {

QString toString(BundleRunOutcome::Kind k)
{
    switch (k) {
    case BundleRunOutcome::Kind::Imported: return QStringLiteral("imported");
    case BundleRunOutcome::Kind::Skipped: return QStringLiteral("skipped");
    case BundleRunOutcome::Kind::Failed: break;
    }
    return QStringLiteral("failed");
}

int BundleImportReport::count(BundleRunOutcome::Kind k) const
{
    return int(std::count_if(runs.begin(), runs.end(), [k](const BundleRunOutcome& r) { return r.kind == k; }));
}

QString BundleImportReport::summary() const
{
    return QStringLiteral("%1: %2 imported, %3 skipped, %4 failed%5")
        .arg(source)
        .arg(count(BundleRunOutcome::Kind::Imported))
        .arg(count(BundleRunOutcome::Kind::Skipped))
        .arg(count(BundleRunOutcome::Kind::Failed))
        .arg(cancelled ? QStringLiteral(" (cancelled)") : QString());
}

QString BundleExportReport::summary() const
{
    return QStringLiteral("exported %1 run(s), %2 step(s) to %3").arg(runs).arg(steps).arg(path);
}

Result<TrajectoryBundle> readTrajectoryBundleFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::Io, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    auto bundle = readTrajectoryBundle(f.readAll());
    if (!bundle)
        return makeError(bundle.error().code, QStringLiteral("%1: %2").arg(path, bundle.error().message));
    return bundle;
}

BundleImportReport importTrajectoryBundle(store::Database& db, const TrajectoryBundle& bundle, const QString& source,
                                          const QString& actor, const BundleProgress& progress)
{
    BundleImportReport report;
    report.source = source;
    report.label = bundle.label;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    TrajectoryStore trajectories(db, recordedProviderSecrets(bundle.runs));
    const int total = int(bundle.runs.size());
    for (int i = 0; i < total; ++i) {
        const BundledRun& b = bundle.runs[i];
        BundleRunOutcome o;
        o.index = i;
        o.taskId = b.run.taskId;
        o.steps = int(b.steps.size());
        o.origin = b.origin;
        auto r = trajectories.importRun(b, bundleProvenance(bundle.label, b.origin, bundle.exportedAt, now), actor);
        if (!r) {
            o.error = r.error().message;
        } else {
            o.kind = r->skipped ? BundleRunOutcome::Kind::Skipped : BundleRunOutcome::Kind::Imported;
            o.runId = r->runId;
        }
        report.runs.append(o);
        if (progress && !progress(i + 1, total) && i + 1 < total) {
            report.cancelled = true;
            break;
        }
    }
    return report;
}

Result<BundleExportReport> exportTrajectoryBundle(store::Database& db, const RunSelection& which, const QString& path,
                                                  const QString& label, const QString& exportedBy)
{
    TrajectoryStore trajectories(db);
    (void)trajectories.markDeadRunsInterrupted();  // a run whose process is gone is exported as interrupted
    auto runs = trajectories.bundledRuns(which);
    if (!runs)
        return runs.error();
    if (runs->isEmpty())
        return makeError(
            ErrorCode::NotFound,
            QStringLiteral("no agent runs to export%1")
                .arg(which.taskId.isEmpty() ? QString() : QStringLiteral(" of task '%1'").arg(which.taskId)));
    TrajectoryBundle bundle;
    bundle.label = label;
    bundle.exportedAt = QDateTime::currentDateTimeUtc();
    bundle.exportedBy = exportedBy;
    bundle.runs = std::move(runs).value();
    // Stored text was scrubbed when written; keys the runs' providers name are scrubbed again, should a store
    // written without them hold one.
    const QByteArray bytes = writeTrajectoryBundle(bundle, recordedProviderSecrets(bundle.runs));
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return makeError(ErrorCode::Io, QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    BundleExportReport report;
    report.path = path;
    report.runs = int(bundle.runs.size());
    for (const BundledRun& b : bundle.runs) {
        report.steps += int(b.steps.size());
        if (b.run.state == RunState::Running)
            report.stillRunning.append(b.run.id);
    }
    return report;
}

QString shippedDemonstrationsPath()
{
    return QDir(resourcePath(QStringLiteral("trajectories")))
        .filePath(QStringLiteral("h200-manual-demonstrations.json"));
}

Result<std::optional<BundleImportReport>> seedDemonstrationsIfNoRuns(store::Database& db, const QString& actor)
{
    auto runs = db.exec(QStringLiteral("SELECT EXISTS (SELECT 1 FROM runs)"));
    if (!runs)
        return runs.error();
    QSqlQuery& q = runs.value();
    if (q.next() && q.value(0).toBool())
        return std::optional<BundleImportReport>();
    const QString path = shippedDemonstrationsPath();
    auto bundle = readTrajectoryBundleFile(path);
    if (!bundle)
        return bundle.error();
    return std::optional<BundleImportReport>(importTrajectoryBundle(db, bundle.value(), path, actor));
}

}  // namespace km
