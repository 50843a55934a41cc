#!/bin/bash
# One device call for issue 5 after the children started ahead of their inputs (gated solution and judge, the
# worker's spare reference child), on the H200:
#   1. the relu-anchor speed round (tests/gpu/round_speed.sh relu: first verification, five repeats) and where each
#      verification's time went (bench/verify/phases.py over its verdicts);
#   2. the verifier's whole corpus (tests/gpu/verify_gpu.sh batch), no regression.
#   3. with PROBE=1, tests/gpu/probe_transport.py (how outputs could cross between processes faster);
#   4. with PROTOCOLS=1, bench/verify/timing_protocols.py (the timing protocols side by side).
# CORPUS=0 leaves out step 2; SPEED_MODE=all adds the 48-solution batch to step 1.
# Results: OUT/summary-all.md, OUT/speed.tar.gz, OUT/corpus/*, OUT/probe.md.
# Usage (GPU machine, repository root, device-libs unpacked):
#   [CORPUS=0] [PROBE=1] [PROTOCOLS=1] [SPEED_MODE=all] bash tests/gpu/round_repeat.sh OUT
set -u
final=${1:?usage: round_repeat.sh OUT}
mkdir -p "$final"
if [ "${PROBE:-0}" = 1 ]; then
  PYTHONPATH=resources/harness timeout 120 python3 tests/gpu/probe_transport.py > "$final/probe.md" 2>&1
fi
if [ "${PROTOCOLS:-0}" = 1 ]; then
  PYTHONPATH=resources/harness timeout 120 python3 bench/verify/timing_protocols.py > "$final/protocols.md" 2>&1
fi
SPEED_LIMIT=${SPEED_LIMIT:-170} bash tests/gpu/round_speed.sh "$final" "${SPEED_MODE:-relu}" > /dev/null 2>&1
mkdir -p /tmp/speed-x && tar xzf "$final/speed.tar.gz" -C /tmp/speed-x ./speed/relu.jsonl 2>/dev/null
python3 bench/verify/phases.py /tmp/speed-x/speed/relu.jsonl --phases > "$final/phases.md" 2>&1
if [ "${CORPUS:-1}" = 1 ]; then
  BUILD_LIMIT=${BUILD_LIMIT:-150} BATCH_LIMIT=${BATCH_LIMIT:-240} bash tests/gpu/verify_gpu.sh "$final/corpus" batch \
    > "$final/corpus.log" 2>&1
fi
( date -u; cat "$final/summary.md"; echo; cat "$final/phases.md"; echo; cat "$final/probe.md" 2>/dev/null
  cat "$final/protocols.md" 2>/dev/null
  [ "${CORPUS:-1}" = 1 ] || exit 0
  cat "$final/corpus/table.md"
  mkdir -p /tmp/corpus-x && tar xzf "$final/corpus/results.tar.gz" -C /tmp/corpus-x ./build.txt ./verify.log 2>/dev/null
  tail -1 /tmp/corpus-x/build.txt; grep "verified in\|batch rc" /tmp/corpus-x/verify.log
) > "$final/summary-all.md" 2>&1
cat "$final/summary-all.md"
