#pragma once
// Which NVIDIA GPUs this process may use: a pure parser of `nvidia-smi --query-gpu=...` output, the CUDA runtime's
// rules for CUDA_VISIBLE_DEVICES, and a runner that asks nvidia-smi (blocking, with a timeout: call it off the GUI
// thread). Tested on recorded and hand-written output in tests/data/nvidia-smi/.

#include "util/Result.h"

#include <QList>
#include <QString>
#include <QVariantMap>
#include <optional>

namespace km {

struct GpuDevice {
    int index = -1;  // nvidia-smi's index (PCI bus order)
    QString uuid;    // "GPU-5b3c1d2e-..."
    QString name;    // "NVIDIA H200"
    QString pciBusId;
    qint64 memoryMiB = 0;
    QString computeCap;  // "9.0"

    // "GPU 1 (NVIDIA H200, GPU-5b3c...)": how messages name a GPU.
    QString label() const;
    // {index, uuid, name, pci_bus_id}: what a verdict records as evidence.gpu.
    QVariantMap toEvidence() const;
};

// The query whose output parseGpuQuery reads (csv, noheader, nounits).
QStringList gpuQueryArguments();

// One GPU per non-empty line: "index, uuid, name, pci.bus_id, memory.total, compute_cap". An error names the line.
Result<QList<GpuDevice>> parseGpuQuery(const QString& output);

// The devices a CUDA process sees, in its order, given CUDA_VISIBLE_DEVICES (nullopt: unset, every device).
// Entries are indices or GPU UUIDs (a unique prefix is enough); like the CUDA runtime, the list ends at the first
// entry that names no device (or one already named). MIG instances are an error (not supported here). `note`, when
// given, says where and why the list ended early.
Result<QList<GpuDevice>> applyCudaVisibleDevices(const QList<GpuDevice>& all, const std::optional<QString>& value,
                                                 QString* note = nullptr);

// Picks GPUs for `--gpus`: "all", or a comma list of nvidia-smi indices, each among `visible`.
Result<QList<GpuDevice>> selectGpus(const QList<GpuDevice>& visible, const QString& spec);

// The nvidia-smi to run: $KMOSAIC_NVIDIA_SMI, else nvidia-smi on PATH; NotFound where there is none.
Result<QString> gpuQueryProgram();
// What a finished nvidia-smi run means: its parsed GPUs, or an error naming the program and its message.
Result<QList<GpuDevice>> gpuQueryOutcome(const QString& program, bool normalExit, int exitCode, const QString& out,
                                         const QString& err);
// This process's CUDA_VISIBLE_DEVICES (nullopt: unset).
std::optional<QString> cudaVisibleDevicesSetting();

// Runs nvidia-smi (gpuQueryProgram()) and parses its answer: every GPU of the machine. Blocks (GpuQuery.h does not).
Result<QList<GpuDevice>> queryGpus(int timeoutMs = 20000);
// queryGpus() narrowed by this process's CUDA_VISIBLE_DEVICES.
Result<QList<GpuDevice>> visibleGpus(QString* note = nullptr, int timeoutMs = 20000);

}  // namespace km
