"""Where each verification's wall time went, from the verdicts a `kmosaic verify --json` run printed (one JSON object
per line): the children's times and each child's phases as they reported them (durations.phases).
Usage: python3 bench/verify/phases.py VERDICTS.jsonl [--phases]"""
import json
import sys


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in open(argv[0]) if line.startswith("{")]
    print("| run | status | reference s | build s | solution s | judge s | measuring s | gpu wait s |")
    print("|---|---|---|---|---|---|---|---|")
    for i, v in enumerate(rows):
        d = (v.get("evidence") or v).get("durations") or {}
        cells = [d.get(k) for k in ("reference_s", "build_s", "solution_s", "judge_s", "measuring_s", "gpu_wait_s")]
        print(f"| {i} | {v.get('status')} | " + " | ".join("" if c is None else f"{c:.3f}" for c in cells) + " |")
    if "--phases" in argv:
        for i, v in enumerate(rows):
            phases = ((v.get("evidence") or v).get("durations") or {}).get("phases") or {}
            print(f"\nrun {i}:")
            for who, marks in phases.items():
                print(f"- {who}: " + ", ".join(f"{name} {sec:.3f}" for name, sec in marks if sec >= 0.005))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
