#include "verify/ScratchFolders.h"

#include "util/Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cerrno>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

namespace km {

namespace {
const QString kOwnerFile = QStringLiteral(".kmosaic-owner");

// Field 22 of /proc/PID/stat: the process's start time in clock ticks since boot ("" when it is gone).
QString startTime(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray stat = f.readAll();
    const qsizetype close = stat.lastIndexOf(')');  // the command name may hold spaces and parentheses
    if (close < 0)
        return {};
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    return fields.size() > 19 ? QString::fromLatin1(fields.at(19)) : QString();
}

bool alive(qint64 pid, const QString& started)
{
    if (pid <= 0)
        return false;
    if (::kill(pid_t(pid), 0) != 0 && errno != EPERM)
        return false;
    return startTime(pid) == started;
}

// Sandboxed children leave folders their owner may not list (the sealed 0311 folder): opened up before the removal.
bool removeAll(const QString& path)
{
    const QFileInfo info(path);
    if (info.isDir() && !info.isSymLink()) {
        ::chmod(QFile::encodeName(path).constData(), 0700);
        const QStringList entries =
            QDir(path).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
        for (const QString& e : entries)
            removeAll(QDir(path).filePath(e));
        return QDir().rmdir(path);
    }
    return QFile::remove(path);
}
}  // namespace

bool markScratchOwner(const QString& folder)
{
    QFile f(QDir(folder).filePath(kOwnerFile));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const qint64 pid = ::getpid();
    f.write(QStringLiteral("%1 %2\n").arg(pid).arg(startTime(pid)).toLatin1());
    return true;
}

int removeAbandonedScratch(const QString& parent, const QString& pattern)
{
    int removed = 0;
    const QStringList folders = QDir(parent).entryList({pattern}, QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden);
    for (const QString& name : folders) {
        const QString folder = QDir(parent).filePath(name);
        QFile f(QDir(folder).filePath(kOwnerFile));
        if (!f.open(QIODevice::ReadOnly))
            continue;  // not ours to judge: no owner recorded (yet)
        const QStringList owner = QString::fromLatin1(f.readAll()).trimmed().split(QLatin1Char(' '));
        f.close();
        if (owner.size() != 2 || alive(owner.at(0).toLongLong(), owner.at(1)))
            continue;
        if (removeAll(folder)) {
            ++removed;
            qCInfo(lcVerify).noquote() << "removed the scratch folder of a process that is gone:" << folder;
        } else {
            qCWarning(lcVerify).noquote() << "could not remove the abandoned scratch folder" << folder;
        }
    }
    return removed;
}

}  // namespace km
