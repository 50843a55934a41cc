#!/bin/bash
# One device call for issue 5 within what is left of a session's device time, on the H200:
#   1. the verifier's corpus (tests/gpu/verify_gpu.sh batch; $HONEST narrows the honest solutions), no regression;
#   2. the 48-solution batch on an empty cache (tests/gpu/round_speed.sh batch) with the seconds left of TOTAL.
# Each part ends itself before the call's limit (BUILD_LIMIT, BATCH_LIMIT, TOTAL) so that it packs its results.
# Run on 2026-12-03 as: HONEST=log-softmax-rows,leaky-relu,gelu-tanh,silu BUILD_LIMIT=70 BATCH_LIMIT=110 TOTAL=225
# Usage (GPU machine, repository root, device-libs unpacked): bash tests/gpu/round_batch_corpus.sh OUT
set -u
final=${1:?usage: round_batch_corpus.sh OUT}
mkdir -p "$final"
t0=$(date +%s)
BUILD_LIMIT=${BUILD_LIMIT:-90} BATCH_LIMIT=${BATCH_LIMIT:-160} bash tests/gpu/verify_gpu.sh "$final/corpus" batch \
  > "$final/corpus.log" 2>&1
left=$(( ${TOTAL:-560} - ($(date +%s) - t0) ))
echo "speed limit $left" > "$final/speedlimit.txt"
SPEED_LIMIT=$left bash tests/gpu/round_speed.sh "$final" batch > /dev/null 2>&1
{ cat "$final/corpus/table.md"; echo; cat "$final/speedlimit.txt" "$final/summary.md"; } > "$final/summary-all.md" 2>&1
cat "$final/summary-all.md"
