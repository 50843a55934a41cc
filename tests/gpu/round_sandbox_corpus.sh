#!/bin/bash
# Issue 17's second GPU round, through the real kmosaic binary (device-pack carried, as bundle_libs.sh says):
#   1. tests/gpu/round_sandbox_cli.sh: kill -9 mid-verification, a process left behind, the isolation record;
#   2. tests/gpu/round_repeat.sh: the relu-anchor speed round (first verification, five repeats) and the whole GPU
#      corpus in one batch, every child sandboxed: no regression, timing as before.
# Usage (GPU machine, repository root): bash tests/gpu/round_sandbox_corpus.sh OUT
set -u
final=${1:?usage: round_sandbox_corpus.sh OUT}
mkdir -p "$final"
tar xJf device-pack/libs.tar.xz
bash tests/gpu/round_sandbox_cli.sh "$final/cli" > "$final/cli.log" 2>&1
SPEED_LIMIT=${SPEED_LIMIT:-170} BUILD_LIMIT=${BUILD_LIMIT:-150} BATCH_LIMIT=${BATCH_LIMIT:-240} \
  bash tests/gpu/round_repeat.sh "$final/repeat" > "$final/repeat.log" 2>&1
{ cat "$final/cli/table.md"; echo; cat "$final/repeat/summary-all.md" 2>/dev/null || tail -40 "$final/repeat.log"; } \
  > "$final/summary.md"
cat "$final/summary.md"
