#!/bin/bash
# One device call for issue 5 (verification speed) on the H200: the GPU list as nvidia-smi reports it (a parser
# fixture for the multi-GPU executor), then bench/verify/verify_speed.sh (relu-anchor first + 5 repeats through a
# warm pool, then the 48-solution batch), then how often light headers compiled first time in that batch.
# Everything is packed into OUT/speed.tar.gz plus OUT/summary.md (the device tool returns only a few files).
# Usage (GPU machine, repository root, device-libs carried): bash tests/gpu/round_speed.sh OUT [relu|batch|all]
set -u
final=${1:?usage: round_speed.sh OUT [relu|batch|all]}
mode=${2:-all}
work=$(mktemp -d)
mkdir -p "$final"
pack() {
  cat "$work"/speed/relu.md "$work"/speed/batch.md "$work/light.md" > "$final/summary.md" 2>/dev/null
  tar czf "$final/speed.tar.gz" -C "$work" . 2>/dev/null
}
trap pack EXIT
{ nvidia-smi; nvidia-smi --query-gpu=index,uuid,name,pci.bus_id,memory.total,compute_cap --format=csv,noheader,nounits
  nvidia-smi -L; nproc; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
  nvcc --version | tail -2; date -u; } > "$work/machine.txt" 2>&1
nvidia-smi --query-gpu=index,uuid,name,pci.bus_id,memory.total,compute_cap --format=csv,noheader,nounits \
  > "$work/query-gpu-h200.csv" 2>&1
timeout "${SPEED_LIMIT:-520}" bash bench/verify/verify_speed.sh "$work/speed" "$mode" > "$work/speed.log" 2>&1
echo "verify_speed rc=$?" >> "$work/speed.log"
# Light headers in the batch's builds: each published build keeps fastbuild's report.
python3 - "$work" > "$work/light.md" <<'PY'
import glob, json, sys, collections
work = sys.argv[1]
c = collections.Counter()
for f in glob.glob("/tmp/tmp.*/cache-batch/ext/*/.kmosaic-fastbuild.json") + glob.glob(work + "/**/.kmosaic-fastbuild.json", recursive=True):
    try:
        r = json.load(open(f))
    except Exception:
        continue
    c["builds"] += 1
    for k in ("light", "pch", "nvcc"):
        c[f"{k}={r.get(k)}"] += 1
print("\nlight headers / pch / nvcc (nvccpar) in the batch's builds:", dict(c))
PY
