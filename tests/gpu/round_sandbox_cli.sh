#!/bin/bash
# Issue 17's sandbox cases through the real kmosaic binary on the H200 (device-libs unpacked, as verify_gpu.sh):
#   1. kill -9 of kmosaic during a verification that hangs in forward on the GPU: its worker and children are gone
#      within a second;
#   2. a solution that leaves a double-forked, setsid process behind (reached through computed names): REWARD_HACK
#      with runtime.processes, and the process is gone when the command returns;
#   3. the isolation a GPU verdict records.
# Usage (GPU machine, repository root): bash tests/gpu/round_sandbox_cli.sh OUT
set -u
final=${1:?usage: round_sandbox_cli.sh OUT}
mkdir -p "$final"
root=$(pwd)
export LD_LIBRARY_PATH=$root/device-libs/lib QT_PLUGIN_PATH=$root/device-libs/plugins
export KMOSAIC_HARNESS_DIR=$root/resources/harness KMOSAIC_PYTHON=$(command -v python3)
export KMOSAIC_DB=$(mktemp -d)/store.sqlite
k=$root/device-libs/bin/kmosaic
count() { pgrep -fc -- "$1"; }  # pgrep never counts itself
"$k" import tasks/silu > /dev/null 2>&1 || echo "import failed"
tmp=$(mktemp -d)
TMPDIR=$tmp "$k" verify --task silu --solution tests/verify/corpus/malformed/infinite_loop.py --device cuda \
  --no-store --quiet > /dev/null 2>&1 &
kpid=$!
for i in $(seq 1 1200); do [ "$(count "$tmp")" -ge 5 ] && break; sleep 0.1; done
before=$(count "$tmp")
sleep 2
kill -9 $kpid
t0=$(date +%s%N)
for i in $(seq 1 100); do [ "$(count "$tmp")" -eq 0 ] && break; sleep 0.02; done
left=$(count "$tmp")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "| kill -9 of kmosaic mid-verification | $before processes before; $left left after $ms ms |" > "$final/table.md"
"$k" verify --task silu --solution tests/verify/corpus/tricks/fork_obfuscated.py --device cuda --json --quiet \
  > "$final/fork.json" 2> "$final/fork.log"
leftover=$(count kmosaic-leftover)
python3 - "$final/fork.json" "$leftover" >> "$final/table.md" <<'PY'
import json, sys
text = open(sys.argv[1]).read().strip()
v = json.loads(text.splitlines()[-1]) if text else {}
print(f"| fork_obfuscated.py on cuda | {v.get('status')}; runtime.processes found: {'runtime.processes' in text}; "
      f"leftover processes: {sys.argv[2]} |")
print(f"| isolation of a GPU verdict | {v.get('isolation')} |")
PY
cat "$final/table.md"
