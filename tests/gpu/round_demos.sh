#!/bin/bash
# The manual agent's demonstration trajectories (issue 6) on the H200, through the real kmosaic binary.
#   phase 1: a fresh store with the bundled tasks; for each task of tests/gpu/demos/, `kmosaic agent run --manual`
#            on a copy of its replies in /tmp/kmosaic-demos/TASK (a fixed path: the run stores its reply folder,
#            and `agent resume` reads it from there). A run whose next reply is not written yet ends `failed: no
#            reply for step N`, with that step's prompt (the verifier's feedback, profiler figures included) left
#            in prompt-NNN.md for the person to answer.
#   phase 2: the store of phase 1 (tests/gpu/demos/store-phase1.sqlite), the replies again (now with the
#            answers to those prompts), `kmosaic agent resume` for every failed run.
# Everything (store, prompts, logs; not the build cache) is packed into OUT/demos.tar.gz after every run.
# Usage: [DEMO_OPTS='--seeds 1 ...'] [DEMO_TASKS='a b'] bash tests/gpu/round_demos.sh OUT 1|2
set -u
final=${1:?usage: round_demos.sh OUT 1|2}
phase=${2:?usage: round_demos.sh OUT 1|2}
root=$(pwd)
work=$(mktemp -d)
mkdir -p "$final"
pack() { tar czf "$final/demos.tar.gz" -C "$work" . -C / tmp/kmosaic-demos 2>/dev/null; }  # small: no build cache
trap pack EXIT
export LD_LIBRARY_PATH=$root/device-libs/lib QT_PLUGIN_PATH=$root/device-libs/plugins
export KMOSAIC_HARNESS_DIR=$root/resources/harness KMOSAIC_PYTHON=$(command -v python3)
export KMOSAIC_DB=$work/store.sqlite PYTHONPATH=$root/resources/harness
k=$root/device-libs/bin/kmosaic
cache=/tmp/kmosaic-build-cache  # outside what is packed
# max turns per task: the replies written for it, plus the optimisation steps answered in phase 2
declare -A turns=([gelu-tanh]=3 [rmsnorm]=3 [softmax-rows]=2 [row-sum]=2 [column-max]=2 [leaky-relu]=2)
for t in "${!turns[@]}"; do
  mkdir -p /tmp/kmosaic-demos/$t
  cp tests/gpu/demos/$t/reply-*.md /tmp/kmosaic-demos/$t/
done
if [ "$phase" = 1 ]; then
  "$k" import tasks > "$work/import.txt" 2>&1 || { cat "$work/import.txt"; exit 1; }
  # Builds ahead, on all cores: every reply's code into the content-addressed cache the runs then hit.
  mkdir -p "$work/prebuild"
  for f in tests/gpu/demos/*/reply-*.md; do
    t=$(basename "$(dirname "$f")")
    awk '/^```python/{on=1;next} /^```/{on=0} on' "$f" > "$work/prebuild/$t-$(basename "$f" .md).py"
  done
  find "$work/prebuild" -empty -delete
  s=$(date +%s)
  MAX_JOBS=1 timeout "${PREBUILD_LIMIT:-150}" python3 -m kmosaic_harness build --cache "$cache" --jobs 16 \
    "$work"/prebuild/*.py > "$work/prebuild.txt" 2>&1
  echo "prebuild rc=$? $(( $(date +%s) - s )) s" | tee -a "$work/walls.txt"
  for t in ${DEMO_TASKS:-gelu-tanh rmsnorm row-sum column-max softmax-rows leaky-relu}; do
    s=$(date +%s)
    "$k" agent run --task "$t" --manual /tmp/kmosaic-demos/$t --max-turns "${turns[$t]}" ${DEMO_OPTS:-} \
      --build-cache "$cache" --json > "$work/run-$t.json" 2> "$work/run-$t.log"
    echo "$t rc=$? $(( $(date +%s) - s )) s" | tee -a "$work/walls.txt"
    pack  # after every run: a call cut short keeps what was done
  done
else
  cp tests/gpu/demos/store-phase1.sqlite "$KMOSAIC_DB"
  for id in $("$k" agent list --json | python3 -c 'import json,sys; [print(json.loads(l)["id"]) for l in sys.stdin if l.strip() and json.loads(l)["state"] != "completed"]'); do
    s=$(date +%s)
    "$k" agent resume "$id" --json > "$work/resume-$id.json" 2> "$work/resume-$id.log"
    echo "resume $id rc=$? $(( $(date +%s) - s )) s" | tee -a "$work/walls.txt"
  done
fi
"$k" agent list > "$work/list.txt" 2>&1
cat "$work/list.txt"
