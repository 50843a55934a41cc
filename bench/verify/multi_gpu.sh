#!/bin/bash
# The multi-GPU benchmark of issue 7, on a GPU machine, through the real kmosaic binary (built on Debian, its Qt
# libraries carried in device-libs/ by tests/gpu/bundle_libs.sh):
#   batch:  the 48-solution batch of verify_speed.sh (make_batch.py) with --gpus 0, then with --gpus all (each with
#           an empty build cache, builds ahead on the cores): wall, and per GPU the verdicts it measured and its busy
#           share (seconds measuring, from each verdict's evidence.durations.measuring_s, over the wall);
#   spread: one solution (bench/build/relu_new.py against bench/verify/relu_ref.py) verified with --gpus N on every
#           visible GPU N, build cache warm: the solution's median on each GPU and their spread (max - min) / min.
# Usage (repository root, GPU machine): bash bench/verify/multi_gpu.sh OUT_DIR [batch|spread|all]
set -u
final=${1:?usage: multi_gpu.sh OUT_DIR [batch|spread|all]}
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
"$k" gpus --json > "$work/gpus.jsonl" 2> "$work/gpus-err.txt" || { cat "$work/gpus-err.txt"; exit 1; }
gpus=$(python3 -c "import json,sys; print(' '.join(str(json.loads(l)['index']) for l in open(sys.argv[1]) if l.strip()))" "$work/gpus.jsonl")
first=${gpus%% *}
echo "visible GPUs: $gpus" | tee "$work/gpus.txt"
if [ "$mode" != spread ]; then
  python3 bench/verify/make_batch.py "$work/batch" 48 > "$work/batch.txt"
  for sel in "$first" all; do
    tag=$([ "$sel" = all ] && echo all || echo one)
    t=$(ms)
    "$k" verify --batch "$work/batch/batch.json" --gpus "$sel" --build-cache "$work/cache-$tag" --timeout 120 --json \
      > "$work/batch-$tag.jsonl" 2> "$work/batch-$tag-err.txt"
    echo "$tag rc=$? wall_ms $(( $(ms) - t ))" >> "$work/batch-wall.txt"
  done
  python3 - "$work" <<'PY' | tee "$work/batch.md"
import collections, json, sys
work = sys.argv[1]
walls = {l.split()[0]: int(l.split()[-1]) / 1000 for l in open(f"{work}/batch-wall.txt")}
print("| run | GPUs | wall s | statuses | per GPU: verdicts, busy share |")
print("|---|---|---|---|---|")
for tag in ("one", "all"):
    vs = [json.loads(l) for l in open(f"{work}/batch-{tag}.jsonl") if l.startswith("{")]
    wall = walls.get(tag, 0)
    per = collections.defaultdict(lambda: [0, 0.0])
    for v in vs:
        ev = v.get("evidence", {})
        g = ev.get("gpu", {})
        key = f"GPU {g.get('index', '?')}"
        per[key][0] += 1
        per[key][1] += (ev.get("durations") or {}).get("measuring_s", 0) or 0
    cells = ", ".join(f"{k}: {n}, {100 * s / wall:.1f}%" for k, (n, s) in sorted(per.items()) if wall)
    st = dict(collections.Counter(v.get("status") for v in vs))
    print(f"| {tag} | {len(per)} | {wall:.1f} | {st} | {cells} |")
PY
  grep -h "taken out of rotation" "$work"/batch-*-err.txt | tee -a "$work/batch.md"
fi
if [ "$mode" != batch ]; then
  cache=$work/cache-spread
  # Built once on the first GPU; every later run times the same build.
  "$k" verify --reference bench/verify/relu_ref.py --solution bench/build/relu_new.py --gpus "$first" --seeds 1 \
    --timing-runs 10 --build-cache "$cache" --json --quiet > "$work/spread-warmup.jsonl" 2>> "$work/spread-err.txt"
  for g in $gpus; do
    "$k" verify --reference bench/verify/relu_ref.py --solution bench/build/relu_new.py --gpus "$g" --seeds 5 \
      --timing-runs 100 --build-cache "$cache" --json --quiet >> "$work/spread.jsonl" 2>> "$work/spread-err.txt"
  done
  python3 - "$work" <<'PY' | tee "$work/spread.md"
import json, sys
work = sys.argv[1]
vs = [json.loads(l) for l in open(f"{work}/spread.jsonl") if l.startswith("{")]
print("| GPU | name | uuid | status | solution median ms | IQR % of median | reference median ms |")
print("|---|---|---|---|---|---|---|")
meds = []
for v in vs:
    ev = v.get("evidence", {})
    g = ev.get("gpu", {})
    t = ev.get("timing", {})
    s, r = t.get("solution_ms", {}), t.get("reference_ms", {})
    med = s.get("median")
    iqr = (s.get("q3") - s.get("q1")) if s.get("q3") is not None and s.get("q1") is not None else None
    if med:
        meds.append(med)
    print(f"| {g.get('index')} | {g.get('name')} | {g.get('uuid')} | {v.get('status')} | {med} | "
          f"{100 * iqr / med if med and iqr is not None else ''} | {r.get('median')} |")
if meds:
    print(f"\nsolution medians over {len(meds)} GPUs: min {min(meds):.5f} max {max(meds):.5f} ms, "
          f"spread {100 * (max(meds) - min(meds)) / min(meds):.2f} %")
PY
fi
