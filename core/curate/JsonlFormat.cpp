#include "curate/JsonlFormat.h"

#include "curate/TaskFolder.h"
#include "model/TaskVariant.h"
#include "util/Json.h"

#include <QFile>
#include <QSaveFile>
#include <QStringDecoder>

namespace km {

namespace {
// The next line of f; *size: its length without the newline. A line longer than `limit` is skipped to its end and
// comes back empty.
QByteArray nextLine(QFile& f, qint64 limit, qint64* size)
{
    QByteArray line = f.readLine(limit + 2);
    bool ended = line.endsWith('\n');
    *size = line.size() - (ended ? 1 : 0);
    if (ended || f.atEnd())
        return line;
    while (!ended && !f.atEnd()) {
        const QByteArray more = f.readLine(64 * 1024);
        ended = more.endsWith('\n');
        *size += more.size() - (ended ? 1 : 0);
    }
    return {};
}
}  // namespace

ImportBatch readTasksJsonl(const QString& path, const ImportOptions& options)
{
    ImportBatch batch;
    QFile f(path);
    if (Status s = checkRegularFile(path); !s) {
        batch.issues.append({ImportIssue::Severity::Error, path, 0, s.error().message});
        return batch;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        batch.issues.append(
            {ImportIssue::Severity::Error, path, 0, QStringLiteral("cannot read: %1").arg(f.errorString())});
        return batch;
    }
    int lineNo = 0;
    while (!f.atEnd()) {
        qint64 size = 0;
        QByteArray line = nextLine(f, options.maxLineBytes, &size);
        ++lineNo;
        auto fail = [&](const QString& reason) {
            ++batch.skipped;
            batch.issues.append({ImportIssue::Severity::Error, path, lineNo, reason});
        };
        if (size > options.maxLineBytes) {
            fail(QStringLiteral("the line is %1 per line").arg(overLimitText(size, options.maxLineBytes)));
            continue;
        }
        if (line.trimmed().isEmpty())
            continue;
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
    if (f.error() != QFileDevice::NoError)
        batch.issues.append({ImportIssue::Severity::Error, path, lineNo,
                             QStringLiteral("cannot read %1: %2").arg(path, f.errorString())});
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
