#!/bin/bash
# Issue 17's first GPU round (python only, no kmosaic binary needed), on the H200:
#   1. tests/gpu/probe_sandbox.py as root: CUDA, CUDA IPC between two sandboxed children, ncu and
#      compute-sanitizer inside the sandbox, the cost of a sandboxed child's start;
#   2. the same CUDA check by a non-root uid whose worker runs under `unshare --user --map-root-user --net` (the
#      desktop route: the nested user namespace);
#   3. the harness's unit suite (tests/verify/harness, test_sandbox.py included) on a machine with a GPU.
# Usage (GPU machine, repository root): bash tests/gpu/round_sandbox.sh OUT
set -u
final=${1:?usage: round_sandbox.sh OUT}
mkdir -p "$final"
export PYTHONPATH=$(pwd)/resources/harness PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 --version
  sysctl kernel.unprivileged_userns_clone user.max_user_namespaces 2>&1; cat /proc/self/uid_map; } > "$final/machine.txt" 2>&1
timeout ${PROBE_LIMIT:-240} python3 tests/gpu/probe_sandbox.py > "$final/probe.txt" 2>&1
echo "probe rc=$?" >> "$final/probe.txt"
chmod -R a+rX "$(pwd)" 2>/dev/null
timeout 120 setpriv --reuid=12345 --regid=12345 --clear-groups env HOME=/tmp \
  unshare --user --map-root-user --net python3 tests/gpu/probe_sandbox.py --cuda-only > "$final/probe-nonroot.txt" 2>&1
echo "non-root probe rc=$?" >> "$final/probe-nonroot.txt"
timeout ${UNIT_LIMIT:-360} python3 -B -m unittest discover -s tests/verify/harness -v > "$final/harness-unit.txt" 2>&1
echo "harness unit rc=$?" >> "$final/harness-unit.txt"
{ cat "$final/machine.txt"; echo; tail -12 "$final/probe.txt"; echo; tail -6 "$final/probe-nonroot.txt"; echo
  grep -E "FAIL|ERROR|^Ran|^OK|FAILED|rc=" "$final/harness-unit.txt" | tail -25; } > "$final/summary.md"
cat "$final/summary.md"
