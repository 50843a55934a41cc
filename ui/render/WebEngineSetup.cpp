#include "render/WebEngineSetup.h"

#include <QCoreApplication>
#include <QtGlobal>

#include <unistd.h>

namespace km::ui {

bool disableWebEngineSandboxIfRoot()
{
    static const char kVar[] = "QTWEBENGINE_DISABLE_SANDBOX";
    if (::geteuid() == 0 && !qEnvironmentVariableIsSet(kVar))
        qputenv(kVar, "1");
    return qEnvironmentVariableIntValue(kVar) != 0;
}

void prepareWebEngine()
{
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    disableWebEngineSandboxIfRoot();
}

}  // namespace km::ui
