#!/usr/bin/env bash
# CTest launcher of the tests labelled `gpu`: runs COMMAND when this machine can, else prints "SKIP: <reason>" and
# exits 77 (the tests' SKIP_RETURN_CODE, so ctest reports them skipped, not passed).
# usage: with_gpu.sh [--nvcc] COMMAND...   --nvcc: the command also needs the CUDA compiler
# $KMOSAIC_PYTHON (default python3) is the interpreter whose torch must see the GPU.
set -uo pipefail
skip() { echo "SKIP: $*"; exit 77; }
need_nvcc=0
[ "${1:-}" = --nvcc ] && { need_nvcc=1; shift; }
[ $# -gt 0 ] || { echo "usage: with_gpu.sh [--nvcc] COMMAND..." >&2; exit 2; }
py=${KMOSAIC_PYTHON:-python3}

command -v nvidia-smi > /dev/null || skip "no GPU (nvidia-smi not found)"
nvidia-smi -L > /dev/null 2>&1 || skip "no GPU (nvidia-smi -L fails: no driver or no device)"
"$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' > /dev/null 2>&1 \
    || skip "no GPU for PyTorch (torch.cuda.is_available() false, or no torch in $py)"
if [ "$need_nvcc" = 1 ] && ! command -v nvcc > /dev/null; then
    # where the CUDA toolkit installs it, as torch.utils.cpp_extension looks for it
    for d in "${CUDA_HOME:-}" /usr/local/cuda; do
        [ -n "$d" ] && [ -x "$d/bin/nvcc" ] && { export PATH="$d/bin:$PATH"; break; }
    done
    command -v nvcc > /dev/null || skip "no CUDA compiler (nvcc not on PATH, in \$CUDA_HOME/bin or /usr/local/cuda/bin)"
fi
exec "$@"
