#include "verify/WorkerEnvironment.h"

#include <QRegularExpression>
#include <QStringList>
#include <sys/prctl.h>

namespace km {

namespace {
// Passed by name: the system and Python; the dynamic linker and the compilers of extension builds
// (torch.utils.cpp_extension, ninja); the harness's own switches (grep resources/harness for os.environ).
const QStringList kNames =
    QStringList{QStringLiteral("PATH"),        QStringLiteral("LANG"),        QStringLiteral("LANGUAGE"),
                QStringLiteral("TZ"),          QStringLiteral("TMPDIR"),      QStringLiteral("PYTHONPATH"),
                QStringLiteral("VIRTUAL_ENV"), QStringLiteral("CONDA_PREFIX")} +
    QStringList{QStringLiteral("LD_LIBRARY_PATH"),
                QStringLiteral("LIBRARY_PATH"),
                QStringLiteral("CPATH"),
                QStringLiteral("C_INCLUDE_PATH"),
                QStringLiteral("CPLUS_INCLUDE_PATH"),
                QStringLiteral("CC"),
                QStringLiteral("CXX"),
                QStringLiteral("CUDAHOSTCXX"),
                QStringLiteral("MAX_JOBS")} +
    QStringList{QStringLiteral("KMOSAIC_HARNESS_NO_PRELOAD"),  QStringLiteral("KMOSAIC_GPU_LOCK"),
                QStringLiteral("KMOSAIC_GPU_LOCK_DIR"),        QStringLiteral("KMOSAIC_OUTPUT_TRANSPORT"),
                QStringLiteral("KMOSAIC_NVCC_PARALLEL"),       QStringLiteral("KMOSAIC_NVCC_PARALLEL_MODULE_ID"),
                QStringLiteral("KMOSAIC_NVCC_PARALLEL_REPORT")};

// Passed by prefix: locale, CUDA and the driver (device selection, CUDA_HOME), nvcc's flags, torch's build and
// allocator settings, the thread counts and CPU kinds of OpenMP, MKL and OpenBLAS.
const QStringList kPrefixes{QStringLiteral("LC_"),  QStringLiteral("CUDA_"),  QStringLiteral("NVIDIA_"),
                            QStringLiteral("NVCC"), QStringLiteral("TORCH_"), QStringLiteral("PYTORCH_"),
                            QStringLiteral("OMP_"), QStringLiteral("MKL_"),   QStringLiteral("OPENBLAS_")};

bool looksLikeCredential(const QString& name)
{
    static const QRegularExpression re(QStringLiteral("KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH"),
                                       QRegularExpression::CaseInsensitiveOption);
    return re.match(name).hasMatch();
}

bool allowed(const QString& name)
{
    if (kNames.contains(name))
        return true;
    for (const QString& p : kPrefixes)
        if (name.startsWith(p))
            return !looksLikeCredential(name);
    return false;
}
}  // namespace

QProcessEnvironment workerEnvironment(const QProcessEnvironment& from, const QString& home)
{
    QProcessEnvironment env;
    for (const QString& name : from.keys())
        if (allowed(name))
            env.insert(name, from.value(name));
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    env.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    return env;
}

void hideOwnEnvironment()
{
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

}  // namespace km
