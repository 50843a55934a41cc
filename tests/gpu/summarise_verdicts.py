#!/usr/bin/env python3
"""Helpers of tests/gpu/verify_gpu.sh.

order MANIFEST OUT.json   writes the batch ($HONEST: comma-separated tasks whose honest solutions to take; $SKIP:
                          comma-separated manifest entries, "dir/name.py", to leave out): honest solutions with each
                          fault followed by an honest one, then the
                          tricks, then the compile error; file paths made absolute.
table BATCH VERDICTS      prints a Markdown table of expected and obtained verdicts, and whether every verdict came
                          from the same worker process; exit 1 when any verdict differs from its expectation.
"""
import json
import os
import sys


def order(manifest, out):
    base = os.path.dirname(os.path.abspath(manifest))
    entries = json.load(open(manifest))
    for e in entries:
        e["file"] = os.path.join(base, e["file"])
    only = [t for t in os.environ.get("HONEST", "").split(",") if t]
    skip = {t for t in os.environ.get("SKIP", "").split(",") if t}  # "dir/name.py" entries already verified
    entries = [e for e in entries if os.path.relpath(e["file"], base) not in skip]
    honest = [e for e in entries if e["expect"] == "PASSED" and (not only or e["task"] in only)]
    faults = [e for e in entries if e["expect"] in ("RUNTIME_ERROR", "TIMEOUT")]
    rest = [e for e in entries if e["expect"] not in ("PASSED", "RUNTIME_ERROR", "TIMEOUT")]
    # Tricks first; then the honest solutions with each fault followed by an honest one (same worker), the
    # compile error before the last third.
    tricks = [e for e in rest if e["expect"] != "COMPILE_ERROR"]
    compile_errors = [e for e in rest if e["expect"] == "COMPILE_ERROR"]
    batch = list(tricks)
    step = max(1, len(honest) // (len(faults) + 1))
    for i, e in enumerate(honest):
        batch.append(e)
        if (i + 1) % step == 0:
            if faults:
                batch.append(faults.pop(0))
            elif compile_errors:
                batch.append(compile_errors.pop(0))
    batch += faults + compile_errors
    json.dump(batch, open(out, "w"), indent=1)


def table(batch_path, verdicts_path):
    batch = json.load(open(batch_path))
    verdicts = [json.loads(l) for l in open(verdicts_path) if l.strip().startswith("{")]
    by_file = {v.get("file"): v for v in verdicts}
    rows, bad, pids = [], 0, set()
    print("| # | solution | task | expected | verdict | speedup | checks fired / summary | worker run |")
    print("|---|---|---|---|---|---|---|---|")
    for i, e in enumerate(batch, 1):
        v = by_file.get(e["file"])
        name = "/".join(e["file"].split("/")[-2:])
        if not v:
            print(f"| {i} | {name} | {e['task']} | {e['expect']} | (none) | | | |")
            bad += 1
            continue
        env = v.get("environment", {})
        pids.add(env.get("worker_pid"))
        fired = sorted({f["check"] for f in v.get("findings", []) if f.get("severity") == "error"})
        missing = [c for c in e.get("checks", []) if c not in {f["check"] for f in v.get("findings", [])}]
        ok = v["status"] == e["expect"] and not missing
        if e.get("error_line"):
            lines = [d.get("line") for d in v.get("diagnostics", []) if d.get("severity") == "error"]
            ok = ok and e["error_line"] in lines
        bad += not ok
        sp = v.get("speedup")
        detail = ", ".join(fired) if fired else (v.get("summary") or "")[:90]
        if missing:
            detail += f" (missing: {', '.join(missing)})"
        print(f"| {i} | {name} | {e['task']} | {e['expect']} | {v['status']}{'' if ok else ' ✗'} | "
              f"{'' if sp is None else f'{sp:.2f}x'} | {detail.replace('|', '/')} | "
              f"{env.get('worker_verifications', '')} |")
    print()
    print(f"{len(batch) - bad} of {len(batch)} as expected; worker processes used: {len(pids)}")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "order":
        order(sys.argv[2], sys.argv[3])
    else:
        sys.exit(table(sys.argv[2], sys.argv[3]))
