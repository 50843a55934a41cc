#pragma once
// Reads a KernelBench checkout: KernelBench/level1..4/<n>_<Name>.py (level 4's names with hyphens and dots) become
// reference-only tasks.

#include "curate/ImportFiles.h"
#include "curate/ImportReport.h"

namespace km {

bool looksLikeKernelBench(const QString& path);
// The tag of a task whose reference loads a pretrained model by name (`from_pretrained`, as KernelBench level 4
// does): it needs the model's weights downloaded and cannot run offline. Imported and marked, never refused.
inline const QString kNeedsWeightsTag = QStringLiteral("needs-weights");
bool needsDownloadedWeights(const QString& reference);
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
