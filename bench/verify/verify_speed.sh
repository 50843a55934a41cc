#!/bin/bash
# The verification-speed benchmark of issue 5, on the GPU machine, through the real kmosaic binary (built on Debian,
# its Qt libraries carried in device-libs/ by tests/gpu/bundle_libs.sh):
#   0. precompiled torch headers for an empty cache (once per toolchain; timed on its own);
#   1. shared/bench/relu-anchor (copied to bench/build/relu_new.py and bench/verify/relu_ref.py): first verification
#      with an empty build cache, 5 correctness trials and 100 timed runs of each side, wall from the command to the
#      stored verdict;
#   2. the same solution five more times: wall of each, and the solution's timing spread (IQR / median) and medians;
#   3. a batch of 48 distinct solutions for bundled tasks (make_batch.py), empty cache, builds ahead on the cores:
#      wall, and the share of it during which the GPU measured.
# Usage (repository root, GPU machine): bash bench/verify/verify_speed.sh OUT_DIR [relu|batch|all]
set -u
final=${1:?usage: verify_speed.sh OUT_DIR [relu|batch|all]}
mode=${2:-all}
work=$(mktemp -d)
mkdir -p "$final"
trap 'cp "$work"/*.md "$work"/*.jsonl "$work"/*.txt "$final"/ 2>/dev/null' EXIT
root=$(pwd)
export LD_LIBRARY_PATH=$root/device-libs/lib QT_PLUGIN_PATH=$root/device-libs/plugins
export KMOSAIC_HARNESS_DIR=$root/resources/harness KMOSAIC_PYTHON=$(command -v python3) KMOSAIC_DB=$work/store.sqlite
export PYTHONPATH=$root/resources/harness
k=$root/device-libs/bin/kmosaic
ms() { date +%s%N | cut -c1-13; }
"$k" import tasks > "$work/import.txt" 2>&1 || { cat "$work/import.txt"; exit 1; }
if [ "$mode" != batch ]; then
  cache=$work/cache-relu
  t=$(ms); python3 -m kmosaic_harness pch --cache "$cache" --cuda > "$work/pch.txt" 2>&1; pch_ms=$(( $(ms) - t ))
  # A warm pool, as a curation machine keeps one: its worker has imported torch before the first command.
  "$k" pool serve --socket "$work/pool.sock" > "$work/pool.txt" 2>&1 &
  # Ready once its worker has imported torch, torch._dynamo and torch.profiler (about 8 s on the H200).
  for _ in $(seq 600); do grep -q "worker(s) ready" "$work/pool.txt" 2>/dev/null && break; sleep 0.1; done
  for i in 0 1 2 3 4 5; do
    t=$(ms)
    "$k" verify --pool "$work/pool.sock" --reference bench/verify/relu_ref.py --solution bench/build/relu_new.py --seeds 5 --timing-runs 100 \
      --build-cache "$cache" --json --quiet >> "$work/relu.jsonl" 2>> "$work/relu-err.txt"
    echo "$i $(( $(ms) - t ))" >> "$work/relu-wall.txt"
  done
  "$k" pool status --socket "$work/pool.sock" --stop >> "$work/pool.txt" 2>&1
  python3 - "$work" "$pch_ms" <<'PY' | tee "$work/relu.md"
import json, sys
work, pch_ms = sys.argv[1], int(sys.argv[2])
walls = [int(l.split()[1]) / 1000 for l in open(f"{work}/relu-wall.txt")]
vs = [json.loads(l) for l in open(f"{work}/relu.jsonl") if l.startswith("{")]
print(f"precompiled headers (once per toolchain): {pch_ms / 1000:.1f} s\n")
print("| run | wall s | status | build cached | build s | solution median ms | IQR % of median | speedup |")
print("|---|---|---|---|---|---|---|---|")
meds = []
for i, (w, v) in enumerate(zip(walls, vs)):
    ev = v.get("evidence", {})
    t = ev.get("timing", {}).get("solution_ms", {})
    b = ev.get("build", {})
    med = t.get("median")
    iqr = t.get("iqr", t["q3"] - t["q1"] if "q3" in t and "q1" in t else None)
    if med and i > 0:
        meds.append(med)
    print(f"| {'first' if i == 0 else i} | {w:.2f} | {v.get('status')} | {b.get('cached')} | "
          f"{(b.get('stage') or {}).get('seconds', 0):.1f} | {med} | {100 * iqr / med if med and iqr is not None else ''} | "
          f"{v.get('speedup')} |")
if meds:
    print(f"\nmedians of runs 1-5: min {min(meds):.5f} max {max(meds):.5f} ms, spread {100 * (max(meds) - min(meds)) / min(meds):.2f} %")
PY
fi
if [ "$mode" != relu ]; then
  python3 bench/verify/make_batch.py "$work/batch" 48 > "$work/batch.txt"
  t=$(ms)
  "$k" verify --batch "$work/batch/batch.json" --build-cache "$work/cache-batch" --timeout 120 --json \
    > "$work/batch.jsonl" 2> "$work/batch-err.txt"
  echo "batch rc=$? wall $(( ($(ms) - t) / 1000 )) s" >> "$work/batch.txt"
  { cat "$work/batch.txt"; grep "verified in" "$work/batch-err.txt"
    python3 -c "
import json, collections, sys
c = collections.Counter(json.loads(l)['status'] for l in open(sys.argv[1]) if l.startswith('{'))
print(dict(c))" "$work/batch.jsonl"; } | tee "$work/batch.md"
fi
