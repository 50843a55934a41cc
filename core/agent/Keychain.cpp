#include "agent/Keychain.h"

#include "util/Logging.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <qt6keychain/keychain.h>

namespace km {
namespace {

// Set once a request went unanswered: QtKeychain runs one job at a time, so every later one would wait behind it.
std::atomic<bool> g_hung{false};

struct JobOutcome {
    bool answered = false;
    QKeychain::Error error = QKeychain::NoError;
    QString errorText;
    QString text;  // ReadPasswordJob's data
};

QString quoted(const QString& entry)
{
    return QStringLiteral("keychain entry \"%1\" (service %2)").arg(entry, keychainService());
}

std::optional<Error> checkCaller(const QString& entry, const char* what)
{
    if (entry.isEmpty())
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("keychain: %1 needs an entry name").arg(QLatin1String(what)));
    if (!QCoreApplication::instance() || QThread::currentThread() != QCoreApplication::instance()->thread())
        return makeError(ErrorCode::Internal,
                         QStringLiteral("%1: the keychain is used from the main thread only").arg(quoted(entry)));
    if (g_hung.load())
        return makeError(ErrorCode::Io, QStringLiteral("%1: not asked: the keychain did not answer an earlier "
                                                       "request in this process")
                                            .arg(quoted(entry)));
    return std::nullopt;
}

// Starts `job` and waits for its answer at most timeoutMs. The job deletes itself once it finishes (QtKeychain's
// autoDelete), also when that happens after the timeout: the backend still holds it until then.
JobOutcome runJob(QKeychain::Job* job, int timeoutMs)
{
    JobOutcome out;
    QEventLoop loop;
    // `loop` is the context: when it goes out of scope the connection goes too, so a late answer touches nothing.
    QObject::connect(job, &QKeychain::Job::finished, &loop, [&](QKeychain::Job* finished) {
        out.answered = true;
        out.error = finished->error();
        out.errorText = finished->errorString();
        if (const auto* read = qobject_cast<QKeychain::ReadPasswordJob*>(finished); read && !out.error)
            out.text = read->textData();
        loop.quit();
    });
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    job->setAutoDelete(true);
    job->start();
    timer.start(timeoutMs);
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    if (!out.answered)
        g_hung.store(true);
    return out;
}

Error errorOf(const JobOutcome& o, const QString& entry, const QString& doing, int timeoutMs)
{
    if (!o.answered)
        return makeError(ErrorCode::Io,
                         QStringLiteral("%1: the keychain did not answer within %2 s when asked to %3 it (is the "
                                        "secret service (gnome-keyring, KWallet) running and unlocked?)")
                             .arg(quoted(entry), QString::number(timeoutMs / 1000.0), doing));
    const QString why = o.errorText.isEmpty() ? QStringLiteral("no reason given") : o.errorText;
    switch (o.error) {
    case QKeychain::EntryNotFound:
        return makeError(ErrorCode::NotFound, QStringLiteral("%1 does not exist").arg(quoted(entry)), why);
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
        return makeError(ErrorCode::Unsupported,
                         QStringLiteral("%1: no keychain is available to %2 it: %3").arg(quoted(entry), doing, why),
                         why);
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return makeError(ErrorCode::Io,
                         QStringLiteral("%1: access denied when asked to %2 it (is the keychain locked?): %3")
                             .arg(quoted(entry), doing, why),
                         why);
    default:
        return makeError(ErrorCode::Io,
                         QStringLiteral("%1: the keychain failed to %2 it: %3").arg(quoted(entry), doing, why), why);
    }
}

Status finish(const JobOutcome& o, const QString& entry, const QString& doing, int timeoutMs)
{
    if (o.answered && o.error == QKeychain::NoError)
        return Status::success();
    Error e = errorOf(o, entry, doing, timeoutMs);
    qCInfo(lcAgent).noquote() << e.message;
    return e;
}

}  // namespace

QString keychainService()
{
    return QStringLiteral("KernelMosaic");
}

Result<QString> readKeychainSecret(const QString& entry, int timeoutMs)
{
    if (std::optional<Error> e = checkCaller(entry, "reading"))
        return *e;
    auto* job = new QKeychain::ReadPasswordJob(keychainService());
    job->setKey(entry);
    const JobOutcome o = runJob(job, timeoutMs);
    if (Status s = finish(o, entry, QStringLiteral("read"), timeoutMs); !s)
        return s.error();
    return o.text;
}

Status writeKeychainSecret(const QString& entry, const QString& secret, int timeoutMs)
{
    if (std::optional<Error> e = checkCaller(entry, "writing"))
        return *e;
    auto* job = new QKeychain::WritePasswordJob(keychainService());
    job->setKey(entry);
    job->setTextData(secret);
    return finish(runJob(job, timeoutMs), entry, QStringLiteral("store"), timeoutMs);
}

Status deleteKeychainSecret(const QString& entry, int timeoutMs)
{
    if (std::optional<Error> e = checkCaller(entry, "deleting"))
        return *e;
    auto* job = new QKeychain::DeletePasswordJob(keychainService());
    job->setKey(entry);
    return finish(runJob(job, timeoutMs), entry, QStringLiteral("delete"), timeoutMs);
}

}  // namespace km
