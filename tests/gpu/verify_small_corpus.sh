#!/usr/bin/env bash
# The verifier on a GPU through the real kmosaic binary, as CTest runs it (label gpu): a fresh store, the bundled
# tasks imported, then one batch of entries of tests/gpu/solutions/manifest.json (two honest solutions, a numerical
# trick, an illegal-address fault between them and a compile error) verified; fails unless every verdict is the
# manifest's expectation (summarise_verdicts.py table).
# usage: verify_small_corpus.sh KMOSAIC WORK_DIR
set -uo pipefail
k=${1:?usage: verify_small_corpus.sh KMOSAIC WORK_DIR} work=${2:?usage: verify_small_corpus.sh KMOSAIC WORK_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
export KMOSAIC_DB=$work/store.sqlite KMOSAIC_HARNESS_DIR=$root/resources/harness PYTHONPATH=$root/resources/harness
"$k" import "$root/tasks" --quiet > "$work/import.txt" 2>&1 || { cat "$work/import.txt"; echo "FAIL: import"; exit 1; }
"${KMOSAIC_PYTHON:-python3}" - "$root/tests/gpu/solutions/manifest.json" "$work/batch.json" <<'PY' || exit 1
import json, os, sys
manifest, out = sys.argv[1], sys.argv[2]
base = os.path.dirname(manifest)
want = ["honest/gelu-tanh.py", "tricks/stale_memory.py", "faults/illegal_address.py", "honest/silu.py",
        "faults/compile_error.py"]
entries = {e["file"]: e for e in json.load(open(manifest))}
batch = [dict(entries[f], file=os.path.join(base, f)) for f in want]
json.dump(batch, open(out, "w"), indent=1)
PY
"$k" verify --batch "$work/batch.json" --build-cache "$work/build-cache" --timeout 60 --json \
    > "$work/verdicts.jsonl" 2> "$work/verify.log"
echo "kmosaic verify --batch: exit status $?"
"${KMOSAIC_PYTHON:-python3}" "$root/tests/gpu/summarise_verdicts.py" table "$work/batch.json" "$work/verdicts.jsonl" \
    || { tail -n 30 "$work/verify.log"; echo "FAIL: a verdict differs from the manifest's expectation"; exit 1; }
