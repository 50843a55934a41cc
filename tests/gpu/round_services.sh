#!/usr/bin/env bash
# Round 9 on the GPU machine (issue 18): the CLI over the core's services on a real GPU. The executor comes from
# ExecutorFactory (nvidia-smi asked asynchronously, one worker per GPU, two sharing it for a batch), verdicts are
# stored through VerificationService in one transaction, and a solution is accepted through SolutionReviewService.
# usage (repository root, after tar xJf device-pack/libs.tar.xz): bash tests/gpu/round_services.sh OUT_DIR
# Works in a scratch folder; OUT_DIR gets the table and six logs (the device tool brings back at most eight files).
set -uo pipefail
keep=${1:?usage: round_services.sh OUT_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mktemp -d /tmp/round-services.XXXXXX)
mkdir -p "$keep"
export LD_LIBRARY_PATH=$root/device-libs/lib QT_PLUGIN_PATH=$root/device-libs/plugins
export KMOSAIC_PYTHON=$(command -v python3) PYTHONPATH=$root/resources/harness KMOSAIC_HARNESS_DIR=$root/resources/harness
export PATH=/usr/local/cuda/bin:$PATH
k=$root/device-libs/bin/kmosaic
rows=()
row() { rows+=("$(printf '%-44s %-6s %s' "$1" "$2" "$3")"); }

"$k" gpus > "$out/gpus.txt" 2>&1; rc=$?
row "kmosaic gpus" "$rc" "$(head -1 "$out/gpus.txt")"

# The batch of the gpu_verify_small_corpus test: two honest solutions, a trick, a fault, a compile error.
start=$(date +%s)
bash "$root/tests/gpu/verify_small_corpus.sh" "$k" "$out/corpus" > "$out/corpus.txt" 2>&1; rc=$?
row "verify --batch (small corpus, 5 entries)" "$rc" "$(grep -c . "$out/corpus/verdicts.jsonl" 2>/dev/null) verdicts, $(( $(date +%s) - start )) s; $(tail -1 "$out/corpus.txt")"

# One solution, stored; then the review queue and an acceptance that rests on its PASSED verdict.
export KMOSAIC_DB=$out/corpus/store.sqlite
"$k" verify --task silu --solution "$root/tests/gpu/solutions/honest/silu.py" --build-cache "$out/corpus/build-cache" \
    --quiet > "$out/single.txt" 2>&1; rc=$?
row "verify --task silu (single, stored)" "$rc" "$(grep -m1 -o 'PASSED\|[A-Z_]*ERROR\|INCORRECT_[A-Z]*' "$out/single.txt")"
"$k" solutions list --json > "$out/solutions.jsonl" 2>&1; rc=$?
row "solutions list" "$rc" "$(wc -l < "$out/solutions.jsonl") solutions"
passed=$("$KMOSAIC_PYTHON" -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["latest_status"] == "PASSED": print(r["id"]); break' "$out/solutions.jsonl")
wrong=$("$KMOSAIC_PYTHON" -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["latest_status"].startswith("INCORRECT"): print(r["id"]); break' "$out/solutions.jsonl")
"$k" solutions review "$passed" --status accepted --reviewer h200 > "$out/accept.txt" 2>&1; rc=$?
row "solutions review PASSED one --status accepted" "$rc" "$(cat "$out/accept.txt")"
"$k" solutions review "$wrong" --status accepted --reviewer h200 > "$out/refuse.txt" 2>&1; rc=$?
row "solutions review INCORRECT one (refused: 1)" "$rc" "$(tail -1 "$out/refuse.txt")"

# A GPU index that is not visible is bad usage (exit 2), found by the factory after discovery.
"$k" verify --task silu --solution "$root/tests/gpu/solutions/honest/silu.py" --gpus 7 --no-store \
    > "$out/badgpu.txt" 2>&1; rc=$?
row "verify --gpus 7 (not visible: 2)" "$rc" "$(tail -1 "$out/badgpu.txt")"

printf '%s\n' "${rows[@]}" | tee "$out/table.txt"
cp "$out/table.txt" "$out/corpus.txt" "$out/single.txt" "$out/refuse.txt" "$out/badgpu.txt" "$keep/"
cp "$out/corpus/verify.log" "$keep/corpus-verify.log" 2>/dev/null || true
