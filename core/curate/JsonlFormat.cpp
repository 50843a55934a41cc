#include "curate/JsonlFormat.h"

#include "curate/TaskFolder.h"
#include "model/TaskVariant.h"
#include "util/Json.h"

#include <QFile>
#include <QSaveFile>
#include <QStringDecoder>

namespace km {

ImportBatch readTasksJsonl(const QString& path)
{
    ImportBatch batch;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        batch.issues.append(
            {ImportIssue::Severity::Error, path, 0, QStringLiteral("cannot read: %1").arg(f.errorString())});
        return batch;
    }
    int lineNo = 0;
    while (!f.atEnd()) {
        QByteArray line = f.readLine();
        ++lineNo;
        if (line.trimmed().isEmpty())
            continue;
        auto fail = [&](const QString& reason) {
            ++batch.skipped;
            batch.issues.append({ImportIssue::Severity::Error, path, lineNo, reason});
        };
        QStringDecoder decoder(QStringDecoder::Utf8);
        (void)QString(decoder.decode(line));
        if (decoder.hasError()) {
            fail(QStringLiteral("not valid UTF-8"));
            continue;
        }
        json::ParseError perr;
        const auto value = json::parse(line.trimmed(), &perr);
        if (!value) {
            fail(QStringLiteral("malformed JSON at column %1: %2").arg(perr.column).arg(perr.reason));
            continue;
        }
        if (value->typeId() != QMetaType::QVariantMap) {
            fail(QStringLiteral("expected a JSON object (one task per line)"));
            continue;
        }
        auto task = taskFromVariant(value->toMap());
        if (!task) {
            fail(task.error().message);
            continue;
        }
        Task t = std::move(task).value();
        if (!value->toMap().contains(QStringLiteral("source"))) {
            // A task without a recorded origin remembers the file it came from.
            t.source.kind = SourceKind::File;
            t.source.path = path;
            t.source.line = lineNo;
        }
        QList<ImportIssue> found;
        if (!reportValidation(
                t, path, [lineNo](const QString&) { return lineNo; }, &found)) {
            ++batch.skipped;
            batch.issues.append(found);
            continue;
        }
        batch.issues.append(found);
        batch.tasks.append(t);
    }
    return batch;
}

QByteArray taskToJsonLine(const Task& task)
{
    return json::write(taskToVariant(task));
}

Status writeTasksJsonl(const QList<Task>& tasks, const QString& path)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return makeError(ErrorCode::Io, QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    for (const Task& t : tasks) {
        f.write(taskToJsonLine(t));
        f.write("\n");
    }
    if (!f.commit())
        return makeError(ErrorCode::Io, QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    return {};
}

}  // namespace km
