#!/bin/bash
# Wall time of plain nvcc against nvccpar.py (host and device phases side by side) for one CUDA source, N runs each,
# alternating; checks that both print the same thing and that nvccpar took its parallel path. Prints a table.
# Usage: bash bench/build/nvcc_parallel_bench.sh [SOURCE.cu] [RUNS]   (repository root)
#   default SOURCE: a small ReLU kernel that includes ATen/core/Tensor.h (as fastbuild's light headers do);
#   env: NVCC (default $CUDA_HOME/bin/nvcc), ARCH (default sm_90), PY (default python3, needs torch for its headers),
#        EXTRA (more nvcc flags, e.g. "-ccbin /opt/gcc/bin/g++").
# nvccpar needs two free cores to gain anything: on a busy machine the figures say more about the load than about it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
par="$here/../../resources/harness/kmosaic_harness/nvccpar.py"
nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
py=${PY:-python3}
runs=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=${1:-}
if [ -z "$src" ]; then
  src=$work/k.cu
  cat > "$src" <<'EOF'
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
__global__ void relu_k(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long stride = (long)gridDim.x * blockDim.x;
  for (; i < n4; i += stride) { float4 v = x[i]; v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f); y[i] = v; }
}
at::Tensor relu_cuda(at::Tensor x) {
  auto y = at::empty_like(x);
  long n4 = x.numel() / 4;
  relu_k<<<132 * 8, 256>>>((const float4*)x.data_ptr<float>(), (float4*)y.data_ptr<float>(), n4);
  return y;
}
EOF
fi
inc=$($py -c 'import torch.utils.cpp_extension as ce; print(" ".join("-I" + p for p in ce.include_paths()))' 2>/dev/null)
# shellcheck disable=SC2206
flags=(-std=c++17 -arch="${ARCH:-sm_90}" -Xcompiler -fPIC -O3 $inc ${EXTRA:-})
echo "source: $src"
echo "nvcc: $nvcc ($("$nvcc" --version | tail -1))"
echo "cores: $(nproc), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %10s %10s %8s %s\n' run nvcc_s nvccpar_s ratio "nvccpar mode / same output"
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }  # no bc on the GPU machine
tn=0; tp=0
for i in $(seq 1 "$runs"); do
  t0=$(date +%s.%N)
  "$nvcc" "${flags[@]}" -c "$src" -o "$work/n.o" >"$work/n.out" 2>"$work/n.err"; rn=$?
  t1=$(date +%s.%N)
  rm -f "$work/rep.jsonl"
  $py -S "$par" --report "$work/rep.jsonl" --nvcc "$nvcc" -- "${flags[@]}" -c "$src" -o "$work/p.o" \
    >"$work/p.out" 2>"$work/p.err"; rp=$?
  t2=$(date +%s.%N)
  mode=$($py -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["mode"])' "$work/rep.jsonl" 2>/dev/null)
  same=no
  cmp -s "$work/n.err" "$work/p.err" && cmp -s "$work/n.out" "$work/p.out" && [ "$rn" = "$rp" ] && same=yes
  dn=$(calc "$t1 - $t0"); dp=$(calc "$t2 - $t1")
  tn=$(calc "$tn + $dn"); tp=$(calc "$tp + $dp")
  printf '%-5s %10s %10s %8s %s\n' "$i" "$dn" "$dp" "$(calc "$dp / $dn")" "$mode / $same (exit $rn / $rp)"
done
printf '%-5s %10s %10s %8s\n' mean "$(calc "$tn / $runs")" "$(calc "$tp / $runs")" "$(calc "$tp / $tn")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -f "$work/rep.jsonl" ]; then
  echo "last nvccpar steps (s):"
  $py -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print("  " + ", ".join("%s %.2f" % (s["step"], s["seconds"]) for s in d.get("steps", [])))' "$work/rep.jsonl"
fi
