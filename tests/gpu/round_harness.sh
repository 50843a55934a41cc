#!/bin/bash
# One device call after a harness change (issue 5), on the H200:
#   1. what importing torch._dynamo/torch.profiler costs and whether it touches CUDA (the worker preloads them);
#   2. bench/verify/timing_protocols.py: the spread of the timing protocols (old sync-record, the lead, read flush);
#   3. the verifier's corpus, no regression (tests/gpu/verify_gpu.sh batch: every honest solution passes, every
#      trick is caught), now through two workers sharing the GPU (verify --batch's default);
#   4. the relu-anchor speed round (tests/gpu/round_speed.sh relu: first verification and five repeats).
# Results: OUT/summary.md, OUT/corpus/table.md, OUT/timing_protocols.md, and the tarballs of each part.
# Usage (GPU machine, repository root, device-libs unpacked): bash tests/gpu/round_harness.sh OUT
set -u
final=${1:?usage: round_harness.sh OUT}
mkdir -p "$final"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  PYTORCH_NVML_BASED_CUDA_CHECK=1 python3 -c '
import time
t = time.time()
import torch
t1 = time.time()
import torch._dynamo, torch.profiler
t2 = time.time()
print(f"import torch {t1 - t:.2f} s; torch._dynamo + torch.profiler {t2 - t1:.2f} s; CUDA initialised by them: {torch.cuda.is_initialized()}")'
} > "$final/imports.txt" 2>&1
PYTHONPATH=resources/harness timeout 120 python3 bench/verify/timing_protocols.py > "$final/timing_protocols.md" 2>&1
BUILD_LIMIT=${BUILD_LIMIT:-170} BATCH_LIMIT=${BATCH_LIMIT:-240} bash tests/gpu/verify_gpu.sh "$final/corpus" batch \
  > "$final/corpus.log" 2>&1
SPEED_LIMIT=${SPEED_LIMIT:-200} bash tests/gpu/round_speed.sh "$final" relu > /dev/null 2>&1
{ cat "$final/imports.txt"; echo; cat "$final/timing_protocols.md"; echo; cat "$final/corpus/table.md"; echo
  mkdir -p /tmp/corpus-x && tar xzf "$final/corpus/results.tar.gz" -C /tmp/corpus-x ./build.txt ./verify.log 2>/dev/null
  tail -1 /tmp/corpus-x/build.txt; grep "verified in\|batch rc" /tmp/corpus-x/verify.log; echo; cat "$final/summary.md"
} > "$final/summary-all.md" 2>&1
cat "$final/summary-all.md"
