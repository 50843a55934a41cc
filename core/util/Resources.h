#pragma once
// Where the program's run-time resources (guidance notes, prompt templates, the harness) are found. Pure lookup,
// any thread.

#include <QString>

namespace km {

// The resources folder: $KMOSAIC_RESOURCES_DIR, else share/kmosaic next to the program when it holds `probe`
// (installed), else the source tree's resources/.
QString resourcesDir(const QString& probe = QStringLiteral("guidance"));
// One entry under the resources folder, e.g. resourcePath("prompts").
QString resourcePath(const QString& name);

}  // namespace km
