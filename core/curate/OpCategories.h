#pragma once
// Derives op categories from the torch calls of a reference program (KernelBench imports carry none).

#include <QStringList>

namespace km {

// Categories in the order of knownCategories(); "fused" added for a level-2 program, "model" for level 3.
QStringList deriveCategories(const QString& referenceSource, int level);

}  // namespace km
