#include "curate/ImportFiles.h"

#include <QFile>
#include <QStringDecoder>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace km {

namespace {
QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

QString sizeText(qint64 bytes)
{
    if (bytes >= 1024 * 1024)
        return QStringLiteral("%1 MiB").arg(double(bytes) / (1024 * 1024), 0, 'f', 1);
    return QStringLiteral("%1 KiB").arg(double(bytes) / 1024, 0, 'f', 1);
}
}  // namespace

QString overLimitText(qint64 size, qint64 limit)
{
    return QStringLiteral("%1 bytes (%2), over the import limit of %3 KiB")
        .arg(size)
        .arg(sizeText(size))
        .arg(limit / 1024);
}

bool entryExists(const QString& path)
{
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 || errno != ENOENT;
}

Status checkRegularFile(const QString& path)
{
    const QByteArray name = QFile::encodeName(path);
    struct stat st {};
    if (::stat(name.constData(), &st) != 0) {
        const int error = errno;
        struct stat link {};
        const bool isLink = ::lstat(name.constData(), &link) == 0 && S_ISLNK(link.st_mode);
        if (isLink && error == ELOOP)
            return makeError(
                ErrorCode::Io,
                QStringLiteral("cannot read %1: a symbolic link that loops (%2)").arg(path, systemError(error)));
        if (isLink && error == ENOENT)
            return makeError(ErrorCode::Io,
                             QStringLiteral("cannot read %1: a symbolic link to a file that does not exist").arg(path));
        return makeError(error == ENOENT ? ErrorCode::NotFound : ErrorCode::Io,
                         QStringLiteral("cannot read %1: %2").arg(path, systemError(error)));
    }
    if (S_ISDIR(st.st_mode))
        return makeError(ErrorCode::Io, QStringLiteral("cannot read %1: it is a folder, not a file").arg(path));
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::Io,
                         QStringLiteral("cannot read %1: not a regular file (a device, socket or pipe)").arg(path));
    return {};
}

Result<std::optional<QString>> readOptionalTextFile(const QString& path, qint64 maxBytes)
{
    if (!entryExists(path))
        return std::optional<QString>();
    auto text = readTextFile(path, maxBytes);
    if (!text)
        return text.error();
    return std::optional<QString>(std::move(text).value());
}

Result<QString> readTextFile(const QString& path, qint64 maxBytes)
{
    if (Status s = checkRegularFile(path); !s)
        return s.error();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::Io, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    if (f.size() > maxBytes)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1 is %2").arg(path, overLimitText(f.size(), maxBytes)));
    const QByteArray bytes = f.read(maxBytes + 1);  // a file that grows meanwhile still stops at the limit
    if (f.error() != QFileDevice::NoError)
        return makeError(ErrorCode::Io, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    if (bytes.size() > maxBytes)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1 is over the import limit of %2 KiB").arg(path).arg(maxBytes / 1024));
    QStringDecoder decoder(QStringDecoder::Utf8);
    QString text = decoder.decode(bytes);
    if (decoder.hasError())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("%1 is not valid UTF-8").arg(path));
    return text;
}

}  // namespace km
