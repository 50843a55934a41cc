#include "verify/Prebuilder.h"

#include "util/Logging.h"
#include "verify/HarnessLaunch.h"
#include "verify/WorkerEnvironment.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace km {

void tallyPrebuildLine(const QString& line, PrebuildTally& tally)
{
    static const QRegularExpression re(QStringLiteral(R"(^(built|FAILED)\s+[0-9.]+ s\s+\S)"));
    const auto m = re.match(line);
    if (!m.hasMatch())
        return;
    (m.captured(1) == QLatin1String("built") ? tally.built : tally.failed) += 1;
}

Prebuilder::~Prebuilder()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

Status Prebuilder::start(const QList<QPair<QString, QString>>& solutions, const QString& cacheRoot, int jobs)
{
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid())
        return makeError(ErrorCode::Io, QStringLiteral("no temporary folder: %1").arg(m_dir->errorString()));
    QByteArray list;
    int inlineIndex = 0;
    for (const auto& [path, source] : solutions) {
        QString file = path;
        if (!QFileInfo(path).isFile()) {
            file = m_dir->filePath(QStringLiteral("inline-%1.py").arg(++inlineIndex));
            QFile f(file);
            if (!f.open(QIODevice::WriteOnly) || f.write(source.toUtf8()) < 0)
                return makeError(ErrorCode::Io, QStringLiteral("could not write %1: %2").arg(file, f.errorString()));
        }
        list += file.toUtf8() + '\n';
    }
    const QString listPath = m_dir->filePath(QStringLiteral("solutions.txt"));
    QFile f(listPath);
    if (!f.open(QIODevice::WriteOnly) || f.write(list) < 0)
        return makeError(ErrorCode::Io, QStringLiteral("could not write %1: %2").arg(listPath, f.errorString()));
    f.close();

    QString why;
    const QStringList prefix = networkIsolationPrefix(&why);
    QStringList args = prefix.mid(1);
    args << harnessPython() << QStringLiteral("-m") << QStringLiteral("kmosaic_harness") << QStringLiteral("build")
         << QStringLiteral("--cache") << cacheRoot << QStringLiteral("--jobs") << QString::number(jobs)
         << QStringLiteral("--list") << listPath;
    m_process = std::make_unique<QProcess>();
    // Captures import solutions: the allow-listed environment, HOME in this build's own folder.
    m_process->setProcessEnvironment(harnessEnvironment(m_dir->path()));
    hideOwnEnvironment();
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    m_process->setStandardErrorFile(QProcess::nullDevice());
    QObject::connect(m_process.get(), &QProcess::readyReadStandardOutput, m_process.get(), [this] {
        m_pending += m_process->readAllStandardOutput();
        qsizetype nl;
        while ((nl = m_pending.indexOf('\n')) >= 0) {
            tallyPrebuildLine(QString::fromUtf8(m_pending.left(nl)), m_tally);
            m_pending.remove(0, nl + 1);
        }
    });
    m_clock.start();
    const QString program = prefix.isEmpty() ? args.takeFirst() : prefix.first();
    m_process->start(program, args);
    if (!m_process->waitForStarted(10000))
        return makeError(ErrorCode::Io,
                         QStringLiteral("the build command did not start: %1").arg(m_process->errorString()));
    qCInfo(lcVerify) << "building" << solutions.size() << "solution(s) ahead with" << jobs << "job(s)";
    return Status::success();
}

QString Prebuilder::summary()
{
    if (!m_process)
        return {};
    const bool running = m_process->state() != QProcess::NotRunning;
    return QStringLiteral("; builds ahead: %1 built, %2 failed%3")
        .arg(m_tally.built)
        .arg(m_tally.failed)
        .arg(running ? QStringLiteral(" (still running)") : QString());
}

}  // namespace km
