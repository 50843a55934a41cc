#include "curate/Importer.h"

#include "curate/ImportFiles.h"

#include "curate/JsonlFormat.h"
#include "curate/KernelBenchImporter.h"
#include "curate/TaskFolder.h"
#include "store/TaskStore.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>

namespace km {

std::optional<TaskFormat> taskFormatFromString(const QString& s)
{
    if (s == QLatin1String("auto"))
        return TaskFormat::Auto;
    if (s == QLatin1String("folder"))
        return TaskFormat::Folder;
    if (s == QLatin1String("kernelbench"))
        return TaskFormat::KernelBench;
    if (s == QLatin1String("jsonl"))
        return TaskFormat::Jsonl;
    return std::nullopt;
}

QString toString(TaskFormat f)
{
    switch (f) {
    case TaskFormat::Auto: return QStringLiteral("auto");
    case TaskFormat::Folder: return QStringLiteral("folder");
    case TaskFormat::KernelBench: return QStringLiteral("kernelbench");
    case TaskFormat::Jsonl: return QStringLiteral("jsonl");
    }
    return {};
}

Result<TaskFormat> detectFormat(const QString& path)
{
    const QFileInfo fi(path);
    if (!fi.exists())
        return makeError(ErrorCode::NotFound, QStringLiteral("%1 does not exist").arg(path));
    if (fi.isFile()) {
        if (fi.suffix().compare(QLatin1String("jsonl"), Qt::CaseInsensitive) == 0 ||
            fi.suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0)
            return TaskFormat::Jsonl;
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1: cannot tell the format of this file (expected a .jsonl file)").arg(path));
    }
    if (looksLikeKernelBench(path))
        return TaskFormat::KernelBench;
    return TaskFormat::Folder;
}

namespace {
ImportBatch readFolders(const QString& path, const ImportOptions& options)
{
    ImportBatch batch;
    const QDir dir(path);
    if (entryExists(dir.filePath(QStringLiteral("task.toml")))) {  // even a broken link: reading it says what is wrong
        if (auto t = readTaskFolder(path, &batch.issues, options))
            batch.tasks.append(*t);
        else
            ++batch.skipped;
        return batch;
    }
    const QFileInfoList subdirs = dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& sub : subdirs) {
        if (!entryExists(QDir(sub.filePath()).filePath(QStringLiteral("task.toml")))) {
            batch.issues.append({ImportIssue::Severity::Warning, sub.filePath(), 0,
                                 QStringLiteral("no task.toml: not a task folder, skipped")});
            continue;
        }
        if (auto t = readTaskFolder(sub.filePath(), &batch.issues, options))
            batch.tasks.append(*t);
        else
            ++batch.skipped;
    }
    if (subdirs.isEmpty())
        batch.issues.append({ImportIssue::Severity::Error, path, 0, QStringLiteral("holds no task folders")});
    return batch;
}
}  // namespace

ImportBatch readTasks(const QString& path, TaskFormat format, const ImportOptions& options)
{
    if (format == TaskFormat::Auto) {
        auto detected = detectFormat(path);
        if (!detected) {
            ImportBatch b;
            b.issues.append({ImportIssue::Severity::Error, path, 0, detected.error().message});
            return b;
        }
        format = detected.value();
    }
    ImportBatch batch;
    switch (format) {
    case TaskFormat::Jsonl: batch = readTasksJsonl(path, options); break;
    case TaskFormat::KernelBench: batch = readKernelBench(path, options); break;
    default: batch = readFolders(path, options); break;
    }
    // The same id twice in one import: keep the first, report the second.
    QSet<QString> seen;
    QList<Task> unique;
    for (const Task& t : batch.tasks) {
        if (seen.contains(t.id)) {
            ++batch.skipped;
            batch.issues.append({ImportIssue::Severity::Error, path, t.source.line,
                                 QStringLiteral("task id '%1' appears more than once; later copy skipped").arg(t.id)});
            continue;
        }
        seen.insert(t.id);
        unique.append(t);
    }
    batch.tasks = unique;
    return batch;
}

namespace {
QString importReason(const QString& path)
{
    return QStringLiteral("import %1").arg(path);
}
bool isImportReason(const QString& reason)
{
    return reason.startsWith(QLatin1String("import "));
}
}  // namespace

Result<ImportReport> importTasks(TaskStore& store, const QString& path, TaskFormat format, const QString& actor,
                                 const Progress& progress, const ImportOptions& options)
{
    return importBatch(store, readTasks(path, format, options), path, actor, progress);
}

Result<ImportReport> importBatch(TaskStore& store, const ImportBatch& batch, const QString& path, const QString& actor,
                                 const Progress& progress)
{
    ImportReport report;
    report.issues = batch.issues;
    report.skipped = batch.skipped;
    const int total = int(batch.tasks.size());
    constexpr int kChunk = 500;  // one transaction per chunk: progress shows, and a cancel keeps what was stored
    for (int from = 0; from < total; from += kChunk) {
        if (progress && !progress(from, total))
            break;
        const QList<Task> chunk = batch.tasks.mid(from, kChunk);
        auto outcomes = store.upsertTasks(chunk, actor, importReason(path));
        if (!outcomes)
            return outcomes.error();
        for (int i = 0; i < outcomes.value().size(); ++i) {
            const UpsertOutcome o = outcomes.value().at(i);
            if (o == UpsertOutcome::Created) {
                ++report.created;
                report.createdIds.append(chunk.at(i).id);
            } else if (o == UpsertOutcome::Updated) {
                ++report.updated;
                report.updatedIds.append(chunk.at(i).id);
            } else {
                ++report.unchanged;
            }
        }
    }
    if (progress)
        progress(report.created + report.updated + report.unchanged, total);
    return report;
}

Result<QStringList> editedSinceImport(TaskStore& store, const QList<Task>& incoming)
{
    QStringList out;
    for (const Task& t : incoming) {
        auto stored = store.task(t.id);
        if (!stored)
            return stored.error();
        if (!stored.value() || stored.value()->contentHash() == t.contentHash())
            continue;  // new, or the import would change nothing
        auto history = store.audit(QStringLiteral("task"), t.id);
        if (!history)
            return history.error();
        bool edited = false;  // the latest content change (created or updated) came from elsewhere than an import
        for (const AuditEntry& e : history.value())
            if (e.action == QLatin1String("created") || e.action == QLatin1String("updated"))
                edited = !isImportReason(e.reason);
        if (edited)
            out.append(t.id);
    }
    return out;
}

Result<int> exportTasks(TaskStore& store, const TaskFilter& filter, TaskFormat format, const QString& out)
{
    auto tasks = store.tasks(filter);
    if (!tasks)
        return tasks.error();
    if (format == TaskFormat::Jsonl) {
        if (Status s = writeTasksJsonl(tasks.value(), out); !s)
            return s.error();
        return int(tasks.value().size());
    }
    if (format != TaskFormat::Folder && format != TaskFormat::Auto)
        return makeError(ErrorCode::Unsupported, QStringLiteral("export writes the folder or jsonl format"));
    if (QFileInfo(out).isFile())
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1 is a file; folder export needs a folder").arg(out));
    for (const Task& t : tasks.value())
        if (Status s = writeTaskFolder(t, out); !s)
            return s.error();
    return int(tasks.value().size());
}

}  // namespace km
