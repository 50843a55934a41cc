#include "cli/Commands.h"
#include "cli/Options.h"
#include "util/Json.h"
#include "verify/GpuDiscovery.h"
#include "verify/LocalExecutor.h"
#include "verify/MultiGpuExecutor.h"

namespace km::cli {

Result<std::unique_ptr<Executor>> localExecutor(const QString& gpus, const QString& device, QTextStream* log,
                                                int workersPerGpu)
{
    // The CPU path, and every machine where nvidia-smi finds no GPU, keep the one worker they always had.
    if (gpus.isEmpty() && device == QLatin1String("cpu"))
        return std::unique_ptr<Executor>(std::make_unique<LocalExecutor>(harnessLaunch({})));
    QString note;
    auto visible = visibleGpus(&note);
    if (!note.isEmpty() && log)
        *log << "kmosaic: " << note << "\n";
    if (gpus.isEmpty() && (!visible || visible->isEmpty()))
        return std::unique_ptr<Executor>(std::make_unique<LocalExecutor>(harnessLaunch({})));
    if (!visible)
        return makeError(visible.error().code, QStringLiteral("--gpus: ") + visible.error().message);
    auto chosen = selectGpus(visible.value(), gpus.isEmpty() ? QStringLiteral("all") : gpus);
    if (!chosen)
        return chosen.error();
    // With --device cpu (and --gpus given) the workers verify on the CPU: one per "GPU" all the same (tests).
    return std::unique_ptr<Executor>(std::make_unique<MultiGpuExecutor>(
        chosen.value(), harnessLaunch({}),
        device == QLatin1String("cpu") ? QStringLiteral("cpu") : QStringLiteral("cuda"), workersPerGpu));
}

int gpusCommand(StoreOpener&, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("json"), QStringLiteral("One JSON object per GPU.")});
    if (const auto exit = parseOrExit(p, QStringLiteral("gpus"), args, io))
        return *exit;
    QString note;
    const auto gpus = visibleGpus(&note);
    if (!gpus) {
        io.err << "kmosaic gpus: " << gpus.error().message << "\n";
        return Failed;
    }
    if (!note.isEmpty())
        io.err << "kmosaic gpus: " << note << "\n";
    if (gpus->isEmpty()) {
        io.err << "kmosaic gpus: no GPU is visible"
               << (qEnvironmentVariableIsSet("CUDA_VISIBLE_DEVICES")
                       ? QStringLiteral(" (CUDA_VISIBLE_DEVICES=%1)").arg(qEnvironmentVariable("CUDA_VISIBLE_DEVICES"))
                       : QString())
               << "\n";
        return Failed;
    }
    for (const GpuDevice& g : gpus.value()) {
        if (p.isSet(QStringLiteral("json"))) {
            QVariantMap m = g.toEvidence();
            m.insert(QStringLiteral("memory_mib"), g.memoryMiB);
            m.insert(QStringLiteral("compute_cap"), g.computeCap);
            io.out << QString::fromUtf8(json::write(m)) << "\n";
        } else {
            io.out << g.index << "  " << g.name << "  " << g.uuid << "  " << g.pciBusId << "  " << g.memoryMiB
                   << " MiB  sm_" << QString(g.computeCap).remove(QLatin1Char('.')) << "\n";
        }
    }
    return Ok;
}

}  // namespace km::cli
