#!/bin/bash
# Where the build time of a load_inline solution goes, on the machine it runs on (issue 5: cheaper builds).
# Builds shared/bench/relu-anchor's kernel (copied to bench/build/relu_new.py) four ways and prints a table:
#   1. load_inline as KernelBench runs it (cold cache, TORCH_CUDA_ARCH_LIST of the local GPU, ninja's own job count);
#   2. nvcc phases (--time) of the CUDA source with torch/extension.h, torch/types.h and ATen/core/Tensor.h;
#   3. g++ of the generated pybind main.cpp with and without a precompiled torch/extension.h.
# Usage: bash bench/build/build_profile.sh OUT_DIR   (repository root; python3 with torch and nvcc on PATH)
set -u
out=${1:?usage: build_profile.sh OUT_DIR}
mkdir -p "$out"
work=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
python3 - "$here/relu_new.py" "$work" <<'PY'
import sys, os
src = open(sys.argv[1]).read()
body = src.split('r"""')[1].split('"""')[0]
w = sys.argv[2]
open(f"{w}/full.cu", "w").write(body)
open(f"{w}/types.cu", "w").write(body.replace("#include <torch/extension.h>", "#include <torch/types.h>"))
open(f"{w}/aten.cu", "w").write(body.replace("#include <torch/extension.h>",
     "#include <ATen/core/Tensor.h>\n#include <ATen/ops/empty_like.h>\nnamespace torch { using namespace at; }"))
PY
arch=$(python3 -c 'import torch; c=torch.cuda.get_device_capability() if torch.cuda.is_available() else (9,0); print(f"{c[0]}.{c[1]}")' 2>/dev/null)
export TORCH_CUDA_ARCH_LIST=$arch
# 1. load_inline, cold, verbose (its commands are kept).
TORCH_EXTENSIONS_DIR=$work/ext python3 - "$here/relu_new.py" > "$out/load_inline.log" 2>&1 <<'PY'
import sys, time, torch.utils.cpp_extension as ce
orig = ce.load_inline
def verbose(*a, **k):
    k["verbose"] = True
    return orig(*a, **k)
ce.load_inline = verbose
t = time.time()
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {"__name__": "sol"})
print(f"LOAD_INLINE {time.time() - t:.2f}")
PY
li=$(grep -o 'LOAD_INLINE [0-9.]*' "$out/load_inline.log" | cut -d' ' -f2)
# The flags load_inline used for nvcc and g++ (from its ninja file).
nf=$(find "$work/ext" -name build.ninja | head -1)
cuda_cflags=$(grep '^cuda_cflags' "$nf" | sed 's/^cuda_cflags = //')
cuda_post=$(grep '^cuda_post_cflags' "$nf" | sed 's/^cuda_post_cflags = //')
cflags=$(grep '^cflags' "$nf" | sed 's/^cflags = //')
post=$(grep '^post_cflags' "$nf" | sed 's/^post_cflags = //')
main=$(dirname "$nf")/main.cpp
nvcc_bin=$(grep '^nvcc' "$nf" | sed 's/^nvcc = //'); cxx=$(grep '^cxx' "$nf" | sed 's/^cxx = //')
nvcc_bin=${nvcc_bin:-nvcc}; cxx=${cxx:-g++}
cp "$nf" "$out/build.ninja.txt"
# 2. nvcc phases per header choice.
for v in full types aten; do
  s=$(date +%s%N)
  eval $nvcc_bin $cuda_cflags -c "$work/$v.cu" -o "$work/$v.o" $cuda_post --time "$work/$v.time.csv" > "$work/$v.nvcc.log" 2>&1
  echo "$v rc=$? $(( ($(date +%s%N) - s) / 1000000 ))" >> "$out/nvcc.txt"
  awk -F, -v v=$v 'NR>1{gsub(/ /,"",$2); printf "%s %s %s\n", v, $2, $(NF-1)}' "$work/$v.time.csv" >> "$out/nvcc_phases.txt"
done
# 3. g++ of main.cpp, plain and with a precompiled torch/extension.h (same flags).
s=$(date +%s%N); eval $cxx $cflags -c "$main" -o "$work/main.o" $post > "$work/main.log" 2>&1; echo "main_plain rc=$? $(( ($(date +%s%N) - s) / 1000000 ))" >> "$out/gxx.txt"
mkdir -p "$work/pch"; echo '#include <torch/extension.h>' > "$work/pch/kmosaic_torch.h"
s=$(date +%s%N); eval $cxx $cflags -x c++-header "$work/pch/kmosaic_torch.h" -o "$work/pch/kmosaic_torch.h.gch" $post > "$work/pch.log" 2>&1; echo "pch_build rc=$? $(( ($(date +%s%N) - s) / 1000000 ))" >> "$out/gxx.txt"
s=$(date +%s%N); eval $cxx $cflags -include "$work/pch/kmosaic_torch.h" -Winvalid-pch -c "$main" -o "$work/main2.o" $post > "$work/main2.log" 2>&1; echo "main_pch rc=$? $(( ($(date +%s%N) - s) / 1000000 ))" >> "$out/gxx.txt"
cp "$work"/*.log "$out/" 2>/dev/null
{
  echo "machine: $(nproc) cores, $(python3 -c 'import torch; print(torch.__version__)'), $(nvcc --version | tail -1), arch $arch"
  echo "| step | ms |"; echo "|---|---|"
  echo "| load_inline, cold (s) | $li |"
  awk '{print "| nvcc " $1 " (" $2 ") | " $3 " |"}' "$out/nvcc.txt"
  awk '{print "| g++ " $1 " (" $2 ") | " $3 " |"}' "$out/gxx.txt"
  echo; echo "nvcc phases (ms):"; cat "$out/nvcc_phases.txt"
} | tee "$out/table.md"
