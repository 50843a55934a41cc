#!/bin/bash
# Issue 21's holes on the H200: the whole GPU corpus (tests/gpu/solutions/manifest.json) through the harness with
# static.no_compiled_call and the hidden input distributions, so that no honest kernel is refused and every trick
# and fault keeps its verdict; then the error per distribution of each verdict.
# Usage (GPU machine, repository root, carrying device-pack): bash tests/gpu/round_holes.sh OUT
set -u
final=${1:?usage: round_holes.sh OUT}
mkdir -p "$final"
[ -d device-libs ] || tar xJf device-pack/libs.tar.xz
BUILD_LIMIT=${BUILD_LIMIT:-200} BATCH_LIMIT=${BATCH_LIMIT:-330} bash tests/gpu/verify_gpu.sh "$final/corpus" batch \
  > "$final/corpus.log" 2>&1
tar xzf "$final/corpus/results.tar.gz" -C "$final/corpus" ./verdicts.jsonl 2>/dev/null
python3 - "$final/corpus/verdicts.jsonl" > "$final/distributions.md" <<'PY'
import json, sys
print("| solution | status | " + " | ".join(["plain", "x3", "x0.01", "negated", "shifted"]) + " |")
print("|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    try:
        v = json.loads(line)
    except ValueError:
        continue
    d = {x["name"]: x for x in v.get("evidence", {}).get("distributions", [])}
    cell = lambda n: ("ok " if d[n].get("ok") else "FAIL ") + f"{d[n].get('max_abs', 0):.1e}" if n in d else "-"
    name = (v.get("solution_path") or v.get("path") or str(v.get("solution_id", "")))[-40:]
    print(f"| {name} | {v.get('status')} | " + " | ".join(cell(n) for n in ["plain", "x3", "x0.01", "negated", "shifted"]) + " |")
PY
{ cat "$final/corpus/table.md"; echo; cat "$final/distributions.md"; } > "$final/summary.md" 2>&1
cat "$final/summary.md"
