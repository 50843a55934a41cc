#!/bin/bash
# The verifier's GPU round, run on the H200 through the real kmosaic binary (built on Debian, its Qt libraries
# carried in device-libs/ by tests/gpu/bundle_libs.sh):
#   1. import the bundled tasks into a fresh store;
#   2. build every solution of tests/gpu/solutions/manifest.json at once (python3 -m kmosaic_harness build);
#   3. verify them all in one batch, one worker (kmosaic verify --batch), faults placed between honest solutions
#      so the batch shows that the next verification in the same worker succeeds;
#   4. Nsight Compute metrics and a memcheck pass on one honest solution, memcheck on the illegal-address fault;
#   5. print the table (tests/gpu/summarise_verdicts.py).
# Usage (on the GPU machine, repository root): bash tests/gpu/verify_gpu.sh OUT_DIR [batch|tools|all]
set -u
final=${1:?usage: verify_gpu.sh OUT_DIR [batch|tools|all]}
mode=${2:-all}
# The device tool brings back only a few files: work elsewhere, and pack everything into OUT_DIR on any exit
# (also when a stage is cut short by its time limit).
out=$(mktemp -d)
mkdir -p "$final"
pack() {
  cp "$out/table.md" "$final/" 2>/dev/null
  tar czf "$final/results.tar.gz" -C "$out" . 2>/dev/null
}
trap pack EXIT
root=$(pwd)
export LD_LIBRARY_PATH=$root/device-libs/lib QT_PLUGIN_PATH=$root/device-libs/plugins
export KMOSAIC_HARNESS_DIR=$root/resources/harness KMOSAIC_PYTHON=$(command -v python3) KMOSAIC_DB=$out/store.sqlite
export PYTHONPATH=$root/resources/harness
k=$root/device-libs/bin/kmosaic
cache=/tmp/kmosaic-build-cache
{ nvidia-smi; python3 -c 'import torch; print("torch", torch.__version__)'; nvcc --version | tail -2; } > "$out/machine.txt" 2>&1
"$k" import tasks > "$out/import.txt" 2>&1 || { echo "import failed"; cat "$out/import.txt"; exit 1; }
python3 tests/gpu/summarise_verdicts.py order tests/gpu/solutions/manifest.json "$out/batch.json"
if [ "$mode" != tools ]; then
files=$(python3 -c 'import json,sys; print(" ".join(e["file"] for e in json.load(open(sys.argv[1]))))' "$out/batch.json")
start=$(date +%s)
MAX_JOBS=1 timeout ${BUILD_LIMIT:-200} python3 -m kmosaic_harness build --cache "$cache" --jobs 16 $files > "$out/build.txt" 2>&1
echo "builds: $(( $(date +%s) - start )) s" >> "$out/build.txt"
start=$(date +%s)
timeout ${BATCH_LIMIT:-400} "$k" verify --batch "$out/batch.json" --build-cache "$cache" --timeout 40 --json > "$out/verdicts.jsonl" 2> "$out/verify.log"
echo "batch rc=$? wall $(( $(date +%s) - start )) s" >> "$out/verify.log"
python3 tests/gpu/summarise_verdicts.py table "$out/batch.json" "$out/verdicts.jsonl" | tee "$out/table.md"
fi
[ "$mode" = batch ] && exit 0
# The solution for the tools: $TOOLS_TASK's honest one, or the batch's first honest solution.
honest=$(python3 -c 'import json,sys,os; print(next(e["file"] for e in json.load(open(sys.argv[1])) if e["expect"]=="PASSED" and e["task"]==os.environ.get("TOOLS_TASK",e["task"])))' "$out/batch.json")
htask=$(python3 -c 'import json,sys,os; print(next(e["task"] for e in json.load(open(sys.argv[1])) if e["expect"]=="PASSED" and e["task"]==os.environ.get("TOOLS_TASK",e["task"])))' "$out/batch.json")
timeout ${TOOLS_LIMIT:-240} "$k" verify --task "$htask" --solution "$honest" --build-cache "$cache" --ncu --memcheck --json --quiet \
  > "$out/tools-honest.json" 2> "$out/tools-honest.log"
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
try:
    v = json.loads(open(os.path.join(out, "tools-honest.json")).read().splitlines()[-1])
    for kind in ("ncu", "memcheck"):
        rec = v.get("evidence", {}).get(kind, {})
        open(os.path.join(out, f"{kind}-honest.txt"), "w").write(rec.get("output", "") or json.dumps(rec))
except Exception as e:
    print("tools output:", e)
PY
# A recorded memcheck report with errors, for the parser's tests: the illegal-address fault under compute-sanitizer.
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
spec = {"reference": open("tasks/silu/reference.py").read(), "solution": open("tests/gpu/solutions/faults/illegal_address.py").read(),
        "solution_path": "illegal_address.py", "values": {"batch": 2, "channels": 4, "height": 8, "width": 8}, "init_seed": 1, "seed": 2, "runs": 1}
json.dump(spec, open(out + "/spec-illegal.json", "w"))
PY
TORCH_EXTENSIONS_DIR=/tmp/kmosaic-sanitizer-ext timeout ${MEMCHECK_LIMIT:-240} compute-sanitizer --tool memcheck --leak-check no --print-limit 20 \
  --log-file "$out/memcheck-illegal.txt" python3 -m kmosaic_harness run-once "$out/spec-illegal.json" > "$out/memcheck-illegal.log" 2>&1
echo "tools done"
