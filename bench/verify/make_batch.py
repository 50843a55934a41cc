#!/usr/bin/env python3
"""Writes the 48-solution batch of the verification-speed benchmark (issue 5): the honest GPU solutions of
tests/gpu/solutions, each in up to three launch variants (threads per block 256 -> 128 / 512 where the solution
has `const int threads = 256`, else a variant marker in its CUDA source), so that every entry is a distinct build
of a bundled task, of the sizes those tasks have. Usage: make_batch.py OUT_DIR [N=48]; writes OUT_DIR/batch.json."""
import json
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))
out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 48
manifest = json.load(open(os.path.join(root, "tests", "gpu", "solutions", "manifest.json")))
honest = [e for e in manifest if e["expect"] == "PASSED"]
os.makedirs(out, exist_ok=True)
batch = []
variant = 0
while len(batch) < n:
    for e in honest:
        if len(batch) >= n:
            break
        src = open(os.path.join(root, "tests", "gpu", "solutions", e["file"])).read()
        v = variant
        if v:
            threads = {1: "128", 2: "512"}.get(v)
            if threads and re.search(r"const int threads = 256;", src):
                src = src.replace("const int threads = 256;", f"const int threads = {threads};", 1)
            else:  # a distinct build that computes the same thing
                src = re.sub(r"^(.*__global__)", lambda m: f"// benchmark variant {v}\n" + m.group(1), src, count=1,
                             flags=re.M)
        name = f"{e['task']}-v{v}.py"
        with open(os.path.join(out, name), "w") as f:
            f.write(src)
        batch.append({"task": e["task"], "file": name})
    variant += 1
json.dump(batch, open(os.path.join(out, "batch.json"), "w"), indent=1)
print(f"{len(batch)} solutions over {len({b['task'] for b in batch})} tasks in {out}/batch.json")
