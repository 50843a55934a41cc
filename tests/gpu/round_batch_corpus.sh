#!/bin/bash
# One device call for issue 5's batch targets, on the H200, within what is left of a session's device time:
#   1. the 48-solution batch on an empty cache (tests/gpu/round_speed.sh batch; two workers share the GPU);
#   2. the verifier's corpus again (tests/gpu/verify_gpu.sh batch), no regression.
# Each part ends itself before the call's limit (SPEED_LIMIT, BUILD_LIMIT, BATCH_LIMIT) so that it packs its results.
# Usage (GPU machine, repository root, device-libs unpacked): bash tests/gpu/round_batch_corpus.sh OUT
set -u
final=${1:?usage: round_batch_corpus.sh OUT}
mkdir -p "$final"
date -u > "$final/started.txt"
SPEED_LIMIT=${SPEED_LIMIT:-290} bash tests/gpu/round_speed.sh "$final" batch > /dev/null 2>&1
BUILD_LIMIT=${BUILD_LIMIT:-90} BATCH_LIMIT=${BATCH_LIMIT:-160} bash tests/gpu/verify_gpu.sh "$final/corpus" batch \
  > "$final/corpus.log" 2>&1
{ cat "$final/summary.md"; echo; cat "$final/corpus/table.md"; } > "$final/summary-all.md" 2>&1
cat "$final/summary-all.md"
