#include "cli/BatchInput.h"

#include "curate/TaskFolder.h"
#include "util/Json.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

namespace km::cli {

namespace {

constexpr qint64 kMaxFile = 16 * 1024 * 1024;

Result<QString> readSolution(const QString& path, const QString& where)
{
    const QFileInfo info(path);
    if (!info.isFile())
        return makeError(ErrorCode::NotFound,
                         QStringLiteral("%1: %2 does not exist or is not a file").arg(where, path));
    if (info.size() > kMaxFile)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("%1: %2 is larger than 16 MiB").arg(where, path));
    auto text = readUtf8File(path);
    if (!text)
        return makeError(text.error().code, QStringLiteral("%1: %2").arg(where, text.error().message));
    return text;
}

Result<BatchEntry> entryFrom(const QVariantMap& m, const QDir& base, const QString& where, const QString& defaultTask)
{
    BatchEntry e;
    e.where = where;
    e.taskId = m.value(QStringLiteral("task"), defaultTask).toString();
    const QString file = m.value(QStringLiteral("file")).toString();
    const QVariant code = m.value(QStringLiteral("code"));
    if (e.taskId.isEmpty())
        return makeError(ErrorCode::InvalidInput, where + QStringLiteral(": no \"task\" (or give --task)"));
    if (file.isEmpty() == code.isNull())
        return makeError(ErrorCode::InvalidInput,
                         where + QStringLiteral(": needs exactly one of \"file\" and \"code\""));
    if (!code.isNull()) {
        if (code.typeId() != QMetaType::QString || code.toString().trimmed().isEmpty())
            return makeError(ErrorCode::InvalidInput, where + QStringLiteral(": \"code\" must be a non-empty string"));
        e.source = code.toString();
        e.path = where;
        return e;
    }
    e.path = QDir::cleanPath(base.absoluteFilePath(file));
    auto text = readSolution(e.path, where);
    if (!text)
        return text.error();
    e.source = text.value();
    return e;
}

Result<QList<BatchEntry>> fromJsonArray(const QString& path, const QByteArray& bytes, const QString& defaultTask)
{
    json::ParseError pe;
    const auto parsed = json::parse(bytes, &pe);
    if (!parsed || parsed->typeId() != QMetaType::QVariantList)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1:%2:%3: not a JSON array of {task, file}: %4")
                             .arg(path)
                             .arg(pe.line)
                             .arg(pe.column)
                             .arg(parsed ? QStringLiteral("the top level is not an array") : pe.reason));
    QList<BatchEntry> out;
    const QDir base = QFileInfo(path).absoluteDir();
    int index = 0;
    for (const QVariant& v : parsed->toList()) {
        ++index;
        if (v.typeId() != QMetaType::QVariantMap)
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("%1: entry %2 is not an object").arg(path).arg(index));
        auto e = entryFrom(v.toMap(), base, QStringLiteral("%1: entry %2").arg(path).arg(index), defaultTask);
        if (!e)
            return e.error();
        out.append(e.value());
    }
    return out;
}

Result<QList<BatchEntry>> fromJsonLines(const QString& path, const QByteArray& bytes, const QString& defaultTask)
{
    QList<BatchEntry> out;
    const QDir base = QFileInfo(path).absoluteDir();
    int lineNo = 0;
    for (const QByteArray& line : bytes.split('\n')) {
        ++lineNo;
        if (line.trimmed().isEmpty())
            continue;
        const QString where = QStringLiteral("%1:%2").arg(path).arg(lineNo);
        json::ParseError pe;
        const auto parsed = json::parse(line, &pe);
        if (!parsed || parsed->typeId() != QMetaType::QVariantMap)
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("%1: not a JSON object of {task, file} or {task, code}: %2")
                                 .arg(where, parsed ? QStringLiteral("not an object") : pe.reason));
        auto e = entryFrom(parsed->toMap(), base, where, defaultTask);
        if (!e)
            return e.error();
        out.append(e.value());
    }
    return out;
}

Result<QList<BatchEntry>> fromFolder(const QString& path, const QString& defaultTask)
{
    QStringList files;
    QDirIterator it(path, {QStringLiteral("*.py")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files.append(it.next());
    files.sort();
    QList<BatchEntry> out;
    for (const QString& f : files) {
        const QFileInfo info(f);
        BatchEntry e;
        e.path = info.absoluteFilePath();
        e.where = f;
        const bool nested = QDir(path).absolutePath() != info.absolutePath();
        e.taskId = !defaultTask.isEmpty() ? defaultTask : nested ? info.absoluteDir().dirName() : QString();
        if (e.taskId.isEmpty())
            return makeError(
                ErrorCode::InvalidInput,
                QStringLiteral("%1: no task: put it in a folder named after its task, or give --task").arg(f));
        auto text = readSolution(e.path, f);
        if (!text)
            return text.error();
        e.source = text.value();
        out.append(e);
    }
    return out;
}

}  // namespace

Result<QList<BatchEntry>> readBatch(const QString& path, const QString& defaultTask)
{
    const QFileInfo info(path);
    Result<QList<BatchEntry>> entries = makeError(ErrorCode::Internal, {});
    if (info.isDir()) {
        entries = fromFolder(path, defaultTask);
    } else {
        if (!info.isFile())
            return makeError(ErrorCode::NotFound, QStringLiteral("batch %1 does not exist").arg(path));
        if (info.size() > 256 * 1024 * 1024)
            return makeError(ErrorCode::InvalidInput, QStringLiteral("batch file %1 is larger than 256 MiB").arg(path));
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return makeError(ErrorCode::Io, QStringLiteral("batch file %1: %2").arg(path, f.errorString()));
        const QByteArray bytes = f.readAll();
        const bool lines =
            info.suffix().compare(QLatin1String("jsonl"), Qt::CaseInsensitive) == 0 || !bytes.trimmed().startsWith('[');
        entries = lines ? fromJsonLines(path, bytes, defaultTask) : fromJsonArray(path, bytes, defaultTask);
    }
    if (entries && entries->isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("%1 lists no solution").arg(path));
    return entries;
}

}  // namespace km::cli
