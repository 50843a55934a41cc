#pragma once
// Reads a KernelBench checkout: KernelBench/level1..4/<n>_<Name>.py become reference-only tasks.

#include "curate/ImportFiles.h"
#include "curate/ImportReport.h"

namespace km {

bool looksLikeKernelBench(const QString& path);
ImportBatch readKernelBench(const QString& path, const ImportOptions& options = {});
// "19_ReLU.py" at level 1 -> id "kb-l1-019-relu"; nullopt for a name outside the <n>_<Name>.py pattern.
struct KernelBenchName {
    int problem = 0;
    QString name;  // as in the file name: "ReLU", "Matmul_with_transposed_A"
    QString id;
    QString title;  // "ReLU", "Matmul with transposed A"
};
std::optional<KernelBenchName> parseKernelBenchFileName(const QString& fileName, int level);

}  // namespace km
