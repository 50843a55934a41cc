#include "curate/TaskFolder.h"

#include "curate/TaskToml.h"
#include "curate/TaskValidator.h"
#include "model/TaskVariant.h"
#include "util/Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringDecoder>

namespace km {

namespace {
struct TextFile {
    const char* name;
    QString Task::*member;
};
constexpr TextFile kTextFiles[] = {
    {"description.md", &Task::description}, {"reference.py", &Task::reference}, {"spec.md", &Task::spec}};

ImportIssue issue(const QString& file, int line, const QString& reason, bool error = true)
{
    return ImportIssue{error ? ImportIssue::Severity::Error : ImportIssue::Severity::Warning, file, line, reason};
}
}  // namespace

Result<QString> readUtf8File(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::Io, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    const QByteArray bytes = f.readAll();
    QStringDecoder decoder(QStringDecoder::Utf8);
    QString text = decoder.decode(bytes);
    if (decoder.hasError())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("%1 is not valid UTF-8").arg(path));
    return text;
}

bool reportValidation(const Task& task, const QString& file, const std::function<int(const QString&)>& lineOf,
                      QList<ImportIssue>* issues)
{
    bool ok = true;
    for (const ValidationIssue& v : validateTask(task)) {
        ok = ok && !v.error;
        issues->append(issue(file, lineOf(v.field), QStringLiteral("%1: %2").arg(v.field, v.message), v.error));
    }
    return ok;
}

std::optional<Task> readTaskFolder(const QString& dirPath, QList<ImportIssue>* issues, const ImportOptions& options)
{
    const QDir dir(dirPath);
    const QString tomlPath = dir.filePath(QStringLiteral("task.toml"));
    auto text = readTextFile(tomlPath, options.maxFileBytes);
    if (!text) {
        issues->append(issue(tomlPath, 0, text.error().message));
        return std::nullopt;
    }
    QList<TomlError> tomlErrors;
    const auto doc = parseToml(text.value().toUtf8(), &tomlErrors);
    if (!doc) {
        for (const TomlError& e : tomlErrors)
            issues->append(issue(tomlPath, e.line, e.reason));
        return std::nullopt;
    }
    QList<Error> typeErrors;
    auto decoded = taskFromVariant(doc->root, false, &typeErrors);
    if (!decoded) {
        for (const Error& e : typeErrors)
            issues->append(issue(tomlPath, doc->lineOf(e.detail), e.message));
        return std::nullopt;
    }
    Task task = std::move(decoded).value();
    bool ok = true;
    const QString folderName = QFileInfo(dirPath).fileName();
    if (task.id != folderName) {
        issues->append(issue(tomlPath, doc->lineOf(QStringLiteral("id")),
                             QStringLiteral("id '%1' differs from the folder name '%2'").arg(task.id, folderName)));
        ok = false;
    }
    bool filesRead = true;
    for (const TextFile& tf : kTextFiles) {
        const QString p = dir.filePath(QLatin1String(tf.name));
        auto content = readOptionalTextFile(p, options.maxFileBytes);
        if (!content) {
            issues->append(issue(p, 0, content.error().message));
            filesRead = false;
            continue;
        }
        if (content.value())
            task.*(tf.member) = *content.value();
    }
    if (!filesRead)  // validating without the unread text would only add "the task has none"-style noise
        return std::nullopt;
    const auto lineOf = [&](const QString& field) {
        return field.contains(QLatin1Char('.')) && field.endsWith(QLatin1String(".py")) ? 0 : doc->lineOf(field);
    };
    QList<ImportIssue> found;
    ok = reportValidation(task, tomlPath, lineOf, &found) && ok;
    for (ImportIssue& i : found)  // a problem of reference.py is reported against that file
        if (i.reason.startsWith(QLatin1String("reference.py")))
            i.file = dir.filePath(QStringLiteral("reference.py"));
    issues->append(found);
    if (!ok)
        return std::nullopt;
    return task;
}

Status writeTaskFolder(const Task& task, const QString& parentDir)
{
    const QDir dir(QDir(parentDir).filePath(task.id));
    if (!QDir().mkpath(dir.path()))
        return makeError(ErrorCode::Io, QStringLiteral("cannot create folder %1").arg(dir.path()));
    auto write = [](const QString& path, const QByteArray& bytes) -> Status {
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
            return makeError(ErrorCode::Io, QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
        return {};
    };
    if (Status s = write(dir.filePath(QStringLiteral("task.toml")), writeTaskToml(task)); !s)
        return s;
    for (const TextFile& tf : kTextFiles) {
        const QString p = dir.filePath(QLatin1String(tf.name));
        const QString& content = task.*(tf.member);
        if (content.isEmpty()) {
            if (QFileInfo::exists(p) && !QFile::remove(p))
                return makeError(ErrorCode::Io, QStringLiteral("cannot remove stale %1").arg(p));
            continue;
        }
        if (Status s = write(p, content.toUtf8()); !s)
            return s;
    }
    return {};
}

}  // namespace km
