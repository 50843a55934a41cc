"""Nsight Compute metrics and a compute-sanitizer memcheck pass for a solution, on a GPU, on request.

Both tools run `python3 -m kmosaic_harness run-once` (the solution on the timing configuration) as their target,
from inside an isolated child, and hand their raw output back: the C++ core parses it (toolchain/)."""
import json
import os
import shutil
import subprocess
import sys

import torch

from . import buildstamp, programs, spawn

NCU_METRICS = [
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "smsp__sass_inst_executed_op_local_ld.sum",
    "smsp__sass_inst_executed_op_local_st.sum",
]


def _find(tool):
    cands = [shutil.which(tool) or "", os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", tool)]
    return next((c for c in cands if c and os.path.exists(c)), "")


def run_once_main(argv):
    """The target process: `run-once SPEC.json`. Builds (from the cache) and runs the solution a few times."""
    with open(argv[0]) as f:
        spec = json.load(f)
    programs.exact_fp32()
    buildstamp.install()
    ref = programs.load_module("kmosaic_reference", spec["reference"], "reference.py")
    sol = programs.load_module("kmosaic_solution", spec["solution"], spec["solution_path"])
    programs.apply_config(ref, spec["values"])
    with torch.no_grad():
        ref_model, _ = programs.build_reference(ref, spec["init_seed"], "cuda")
        model, _ = programs.build_solution(sol, ref, ref_model, spec["init_seed"], "cuda")
        inputs = programs.make_inputs(ref, spec["seed"], "cuda")
        for _ in range(int(spec.get("runs", 1))):
            model(*inputs)
        torch.cuda.synchronize()
    return 0


def run_tool(kind, verification, own_kernels):
    """kind: 'ncu' or 'memcheck'. Returns {tool, ok, output|error, seconds}."""
    tool = _find("ncu" if kind == "ncu" else "compute-sanitizer")
    if not tool:
        return {"tool": kind, "ok": False, "error": f"{'ncu' if kind == 'ncu' else 'compute-sanitizer'} not found"}
    v = verification
    scratch = os.path.join(v.dir, kind)
    os.makedirs(scratch, exist_ok=True)
    cfg = v.configs[v.timing["config_index"]]
    spec = {"reference": v.task["reference"], "solution": v.sol["source"], "solution_path": v.sol.get("path", "s.py"),
            "values": cfg["values"], "init_seed": v.init_seed, "seed": v.timing["seed"], "runs": 2}
    spec_path = os.path.join(scratch, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    report = os.path.join(scratch, f"{kind}.txt")
    target = [sys.executable, "-m", "kmosaic_harness", "run-once", spec_path]
    if kind == "ncu":
        cmd = [tool, "--csv", "--log-file", report, "--metrics", ",".join(NCU_METRICS), "--launch-count", "20"]
        if own_kernels:
            cmd += ["--kernel-name", "regex:" + "|".join(own_kernels)]
        cmd += target
    else:
        cmd = [tool, "--tool", "memcheck", "--leak-check", "no", "--print-limit", "20", "--log-file", report] + target

    def work(isolation, phase):
        phase(kind)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        return {"exit_code": p.returncode, "stdout": p.stdout[-4000:]}

    out = spawn.run_child(scratch, [v.build_dir], dict(v.limits, timeout_s=max(v.limits["timeout_s"], 300)), False,
                          work)
    res = out.get("result") or {}
    text = ""
    try:
        with open(report, errors="replace") as f:
            text = f.read(2_000_000)
    except OSError:
        pass
    ok = out["ended"] == "exit" and "error" not in res and bool(text)
    rec = {"tool": kind, "ok": ok, "seconds": out["seconds"], "output": text}
    if not ok:
        rec["error"] = (res.get("error") or {}).get("message") or f"{kind} ended: {out['ended']}"
        rec["log"] = (res.get("stdout") or out.get("log_tail", ""))[-3000:]
    return rec
