#include "verify/GpuDiscovery.h"

#include "util/Logging.h"

#include <QProcess>
#include <QStandardPaths>

namespace km {

QString GpuDevice::label() const
{
    return QStringLiteral("GPU %1 (%2, %3)").arg(index).arg(name, uuid);
}

QVariantMap GpuDevice::toEvidence() const
{
    return {{QStringLiteral("index"), index},
            {QStringLiteral("uuid"), uuid},
            {QStringLiteral("name"), name},
            {QStringLiteral("pci_bus_id"), pciBusId}};
}

QStringList gpuQueryArguments()
{
    return {QStringLiteral("--query-gpu=index,uuid,name,pci.bus_id,memory.total,compute_cap"),
            QStringLiteral("--format=csv,noheader,nounits")};
}

Result<QList<GpuDevice>> parseGpuQuery(const QString& output)
{
    QList<GpuDevice> gpus;
    const QStringList lines = output.split(QLatin1Char('\n'));
    for (int n = 0; n < lines.size(); ++n) {
        const QString line = lines[n].trimmed();
        if (line.isEmpty())
            continue;
        const auto bad = [&](const QString& why) {
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("nvidia-smi output, line %1: %2").arg(n + 1).arg(why), line);
        };
        QStringList f = line.split(QLatin1Char(','));
        if (f.size() != 6)
            return bad(QStringLiteral("expected 6 comma-separated fields (index, uuid, name, pci.bus_id, "
                                      "memory.total, compute_cap), found %1")
                           .arg(f.size()));
        for (QString& s : f)
            s = s.trimmed();
        GpuDevice g;
        bool ok = false;
        g.index = f[0].toInt(&ok);
        if (!ok || g.index < 0)
            return bad(QStringLiteral("index '%1' is not a whole number >= 0").arg(f[0]));
        if (!f[1].startsWith(QLatin1String("GPU-")))
            return bad(QStringLiteral("uuid '%1' does not start with GPU-").arg(f[1]));
        g.uuid = f[1];
        g.name = f[2];
        g.pciBusId = f[3];
        g.memoryMiB = f[4].toLongLong(&ok);
        if (!ok)
            return bad(QStringLiteral("memory.total '%1' is not a number of MiB (query with nounits)").arg(f[4]));
        g.computeCap = f[5];
        for (const GpuDevice& other : gpus) {
            if (other.index == g.index || other.uuid == g.uuid)
                return bad(QStringLiteral("GPU %1 (%2) is listed twice").arg(g.index).arg(g.uuid));
        }
        gpus.append(g);
    }
    return gpus;
}

Result<QList<GpuDevice>> applyCudaVisibleDevices(const QList<GpuDevice>& all, const std::optional<QString>& value,
                                                 QString* note)
{
    if (!value)
        return all;
    QList<GpuDevice> visible;
    if (value->trimmed().isEmpty())
        return visible;
    const QStringList entries = value->split(QLatin1Char(','));
    for (int i = 0; i < entries.size(); ++i) {
        const QString e = entries[i].trimmed();
        const auto stop = [&](const QString& why) {
            if (note)
                *note = QStringLiteral("CUDA_VISIBLE_DEVICES=%1: entry %2 '%3' %4, so the list ends there (as in "
                                       "the CUDA runtime)")
                            .arg(*value)
                            .arg(i + 1)
                            .arg(e, why);
            return visible;
        };
        if (e.startsWith(QLatin1String("MIG-"), Qt::CaseInsensitive))
            return makeError(ErrorCode::Unsupported,
                             QStringLiteral("CUDA_VISIBLE_DEVICES names a MIG instance (%1): MIG instances are not "
                                            "supported by the multi-GPU verifier; name whole GPUs (index or GPU-uuid)")
                                 .arg(e));
        std::optional<GpuDevice> found;
        if (e.startsWith(QLatin1String("GPU-"), Qt::CaseInsensitive)) {
            int matches = 0;
            for (const GpuDevice& g : all) {
                if (g.uuid.startsWith(e, Qt::CaseInsensitive)) {
                    ++matches;
                    found = g;
                }
            }
            if (matches == 0)
                return stop(QStringLiteral("matches no GPU's uuid"));
            if (matches > 1)
                return stop(QStringLiteral("is a prefix of %1 GPUs' uuids").arg(matches));
        } else {
            bool ok = false;
            const int index = e.toInt(&ok);
            if (!ok || index < 0 || e.startsWith(QLatin1Char('+')))
                return stop(QStringLiteral("is neither an index nor a GPU-uuid"));
            for (const GpuDevice& g : all) {
                if (g.index == index)
                    found = g;
            }
            if (!found)
                return stop(QStringLiteral("is not the index of a GPU (%1 found)").arg(all.size()));
        }
        for (const GpuDevice& g : visible) {
            if (g.uuid == found->uuid)
                return stop(QStringLiteral("names GPU %1 a second time").arg(g.index));
        }
        visible.append(*found);
    }
    return visible;
}

Result<QList<GpuDevice>> selectGpus(const QList<GpuDevice>& visible, const QString& spec)
{
    if (visible.isEmpty())
        return makeError(ErrorCode::NotFound, QStringLiteral("no GPU is visible to this process"));
    if (spec.trimmed() == QLatin1String("all"))
        return visible;
    QList<GpuDevice> chosen;
    for (const QString& part : spec.split(QLatin1Char(','))) {
        bool ok = false;
        const int index = part.trimmed().toInt(&ok);
        const auto it =
            std::find_if(visible.cbegin(), visible.cend(), [&](const GpuDevice& g) { return g.index == index; });
        QStringList known;
        for (const GpuDevice& g : visible)
            known << QString::number(g.index);
        if (!ok || it == visible.cend())
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("--gpus: '%1' is not the index of a visible GPU (visible: %2)")
                                 .arg(part.trimmed(), known.join(QLatin1Char(','))));
        if (std::any_of(chosen.cbegin(), chosen.cend(), [&](const GpuDevice& g) { return g.index == index; }))
            return makeError(ErrorCode::InvalidInput, QStringLiteral("--gpus: GPU %1 is named twice").arg(index));
        chosen.append(*it);
    }
    return chosen;
}

Result<QString> gpuQueryProgram()
{
    QString program = qEnvironmentVariable("KMOSAIC_NVIDIA_SMI");
    if (program.isEmpty())
        program = QStandardPaths::findExecutable(QStringLiteral("nvidia-smi"));
    if (program.isEmpty())
        return makeError(ErrorCode::NotFound,
                         QStringLiteral("nvidia-smi was not found on PATH: no NVIDIA driver on this machine"));
    return program;
}

Result<QList<GpuDevice>> gpuQueryOutcome(const QString& program, bool normalExit, int exitCode, const QString& out,
                                         const QString& err)
{
    if (!normalExit || exitCode != 0) {
        const QString why = (err.isEmpty() ? out.trimmed() : err).left(500);
        qCWarning(lcVerify).noquote() << program << "failed:" << why;
        return makeError(ErrorCode::Io,
                         QStringLiteral("%1 failed (exit code %2): %3").arg(program).arg(exitCode).arg(why), err);
    }
    return parseGpuQuery(out);
}

Result<QList<GpuDevice>> queryGpus(int timeoutMs)
{
    auto program = gpuQueryProgram();
    if (!program)
        return program.error();
    QProcess p;
    p.start(program.value(), gpuQueryArguments());
    if (!p.waitForStarted(timeoutMs))
        return makeError(ErrorCode::NotFound,
                         QStringLiteral("%1 could not be started: %2").arg(program.value(), p.errorString()));
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        return makeError(ErrorCode::Io,
                         QStringLiteral("%1 did not answer within %2 s").arg(program.value()).arg(timeoutMs / 1000));
    }
    return gpuQueryOutcome(program.value(), p.exitStatus() == QProcess::NormalExit, p.exitCode(),
                           QString::fromLocal8Bit(p.readAllStandardOutput()),
                           QString::fromLocal8Bit(p.readAllStandardError()).trimmed());
}

std::optional<QString> cudaVisibleDevicesSetting()
{
    return qEnvironmentVariableIsSet("CUDA_VISIBLE_DEVICES")
               ? std::optional<QString>(qEnvironmentVariable("CUDA_VISIBLE_DEVICES"))
               : std::nullopt;
}

Result<QList<GpuDevice>> visibleGpus(QString* note, int timeoutMs)
{
    auto all = queryGpus(timeoutMs);
    if (!all)
        return all;
    return applyCudaVisibleDevices(all.value(), cudaVisibleDevicesSetting(), note);
}

}  // namespace km
