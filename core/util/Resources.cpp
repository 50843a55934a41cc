#include "util/Resources.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace km {

QString resourcesDir(const QString& probe)
{
    const QString env = qEnvironmentVariable("KMOSAIC_RESOURCES_DIR");
    if (!env.isEmpty())
        return QDir::cleanPath(env);
    if (QCoreApplication::instance()) {
        const QString installed =
            QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/../share/kmosaic"));
        if (QFileInfo::exists(installed + QLatin1Char('/') + probe))
            return installed;
    }
    // The source tree: the harness folder's parent (core/CMakeLists.txt defines where the harness is).
    return QDir::cleanPath(QStringLiteral(KMOSAIC_SOURCE_HARNESS_DIR "/.."));
}

QString resourcePath(const QString& name)
{
    return resourcesDir(name) + QLatin1Char('/') + name;
}

}  // namespace km
