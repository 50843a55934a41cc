#pragma once
// The environment of every process that may run solution code: the harness worker and its children, and the
// batch pre-build. An allow list, so that a solution never reads an API key or a desktop session's sockets
// (docs/verifier.md, "Environment"). Pure; any thread.

#include <QProcessEnvironment>
#include <QString>

namespace km {

// What of `from` a worker may see: the variables Python, torch, CUDA, the compilers, the BLAS libraries and the
// harness read (PATH, LANG, LC_*, TZ, TMPDIR, LD_LIBRARY_PATH, CUDA_*, NVIDIA_*, NVCC*, TORCH_*, PYTORCH_*, OMP_*,
// MKL_*, OPENBLAS_*, CC, CXX, MAX_JOBS, the KMOSAIC_* switches of the harness ...), and nothing else. A name taken
// by its prefix is still refused when it looks like a credential (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL,
// AUTH): NVIDIA_API_KEY stays out. HOME is `home`; PYTHONDONTWRITEBYTECODE and PYTHONUNBUFFERED are 1.
QProcessEnvironment workerEnvironment(const QProcessEnvironment& from, const QString& home);

// Makes this process not dumpable (prctl PR_SET_DUMPABLE 0), before it starts a process that runs solution code:
// a solution, running as the same user, could otherwise read our whole environment in /proc/<pid>/environ. Also
// means no core dump of this process and no debugger attaching to it without CAP_SYS_PTRACE.
void hideOwnEnvironment();

}  // namespace km
