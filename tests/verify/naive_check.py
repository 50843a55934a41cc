#!/usr/bin/python3
"""Run every file of the verifier corpus through a NAIVE KernelBench-style check and print a table.

    /usr/bin/python3 tests/verify/naive_check.py [--only SUBSTRING] [--strict] [--timeout S] [--build-timeout S]

The naive check is what a careless harness does, in one process with the solution:
  - load the task's reference with its first `small` configuration's values set as module globals;
  - seed, build Model and ModelNew (seed again before each; no state-dict copy), seed, draw the inputs;
  - run ModelNew, then Model, on the SAME input tensors (not cloned), under torch.no_grad();
  - compare shapes, then torch.allclose(ref, out, atol=1e-2, rtol=1e-2) (looked up at call time);
  - if that passes, time both sides with time.perf_counter (3 warm-up calls, 20 timed calls, same inputs).
One correctness trial, one configuration, no integrity probes. Most tricks of corpus/tricks pass it; every file of
corpus/honest must.

--strict adds a column with a stricter numerical check of the kind the real verifier makes (still no integrity
probes): every `small*` configuration, seeds 1-3 (--seeds N for more), the task's tolerance (or the dtype
default), cloned inputs (every third seed's inputs non-contiguous), the reference's parameters copied into ModelNew when the state-dict keys and
shapes match, after randomising reference parameters that are all ones or all zeros, with its own references to
torch.allclose and torch.isfinite. Honest files must pass it; it shows which tricks fail on numbers alone.

Each file runs in a subprocess of its own (a crash or a hang ends that subprocess only) with cwd a scratch folder,
under signal.alarm limits: --build-timeout for the import (load_inline builds), --timeout for the calls.
TORCH_EXTENSIONS_DIR defaults to /tmp/kmc_torch_extensions so builds are cached between runs.
Exit status: 0 when every observed naive result equals the manifest's "naive" (and, with --strict, every honest
file passes the strict check), 1 otherwise.
"""

import argparse
import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import types

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
TASKS = os.path.normpath(os.path.join(HERE, "..", "..", "tasks"))
MARK = "NAIVE-RESULT "
SEED = 42
NAIVE_TOL = 1e-2
WARMUP, RUNS = 3, 20


# ---------------------------------------------------------------- child side (one file per process)


class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def _task(task_id):
    with open(os.path.join(TASKS, task_id, "task.toml"), "rb") as f:
        meta = tomllib.load(f)
    with open(os.path.join(TASKS, task_id, "reference.py")) as f:
        source = f.read()
    smalls = [c for c in meta.get("configs", []) if c["name"].startswith("small")]
    return meta, source, smalls


def _reference(source, config):
    mod = types.ModuleType("reference")
    exec(compile(source, "reference.py", "exec"), mod.__dict__)
    mod.__dict__.update({k: v for k, v in config.items() if k != "name"})
    return mod


def _cacheable_inline_builds():
    """torch 1.13's load_inline rewrites main.cpp on every call, so ninja rebuilds in every new process. Give an
    unchanged source its previous mtime back before the build step so that TORCH_EXTENSIONS_DIR acts as a cache."""
    import hashlib

    from torch.utils import cpp_extension

    original = cpp_extension._jit_compile

    def jit_compile(name, sources, *args, **kwargs):
        for src in sources:
            stamp = src + ".kmc-stamp"
            with open(src, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            try:
                with open(stamp) as f:
                    old_digest, old_ns = f.read().split()
                if old_digest == digest:
                    os.utime(src, ns=(int(old_ns), int(old_ns)))
            except (OSError, ValueError):
                pass
            with open(stamp, "w") as f:
                f.write(f"{digest} {os.stat(src).st_mtime_ns}")
        return original(name, sources, *args, **kwargs)

    cpp_extension._jit_compile = jit_compile


def _import_solution(path):
    _cacheable_inline_builds()
    spec = importlib.util.spec_from_file_location("solution", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = mod
    spec.loader.exec_module(mod)
    return mod


def _describe(exc):
    if isinstance(exc, _Timeout):
        return "timeout"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:90] if text else ''}"


def _report(result):
    sys.stdout.flush()
    print(MARK + json.dumps(result), flush=True)


def child_naive(path, task_id, build_timeout, run_timeout):
    import torch

    meta, source, smalls = _task(task_id)
    ref = _reference(source, smalls[0])
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(build_timeout)
    try:
        sol = _import_solution(path)
    except BaseException as e:
        signal.alarm(0)
        return _report({"naive": "error", "detail": "import: " + _describe(e)})
    signal.alarm(run_timeout)
    try:
        init = ref.get_init_inputs()
        torch.manual_seed(SEED)
        model = ref.Model(*init)
        torch.manual_seed(SEED)
        model_new = sol.ModelNew(*init)
        torch.manual_seed(SEED)
        inputs = ref.get_inputs()
        with torch.no_grad():
            out_new = model_new(*inputs)  # the solution first, on the very tensors the reference gets next
            out_ref = model(*inputs)
            if out_new.shape != out_ref.shape:
                return _report({"naive": "fail", "detail": f"shape {tuple(out_new.shape)} != {tuple(out_ref.shape)}"})
            if not torch.allclose(out_ref, out_new, atol=NAIVE_TOL, rtol=NAIVE_TOL):
                diff = (out_new - out_ref).abs().max().item()
                return _report({"naive": "fail", "detail": f"allclose: max abs diff {diff:.3g}"})

            def bench(m):
                for _ in range(WARMUP):
                    m(*inputs)
                t0 = time.perf_counter()
                for _ in range(RUNS):
                    m(*inputs)
                return (time.perf_counter() - t0) / RUNS

            t_new = bench(model_new)
            t_ref = bench(model)
        signal.alarm(0)
        speedup = t_ref / t_new if t_new > 0 else math.inf
        return _report({"naive": "pass", "detail": "allclose", "speedup": speedup})
    except BaseException as e:
        signal.alarm(0)
        return _report({"naive": "error", "detail": _describe(e)})


def _non_contiguous(t):
    import torch

    if not isinstance(t, torch.Tensor) or t.dim() == 0:
        return t
    wide = torch.empty(tuple(t.shape) + (2,), dtype=t.dtype)[..., 0]  # same values, last stride 2
    wide.copy_(t)
    return wide


def _randomise_identity_defaults(model, gen):
    import torch

    with torch.no_grad():
        for p in model.parameters():
            if p.is_floating_point() and p.numel() > 1:
                if bool((p == 1).all()):
                    p.copy_(torch.rand(p.shape, generator=gen) + 0.5)
                elif bool((p == 0).all()):
                    p.copy_(torch.randn(p.shape, generator=gen) * 0.1)


def child_strict(path, task_id, build_timeout, run_timeout, seeds=3):
    import torch

    meta, source, smalls = _task(task_id)
    tol = meta.get("tolerance")
    if tol is None:
        low = meta.get("dtype") in ("float16", "bfloat16", "mixed")
        tol = {"atol": 1e-2, "rtol": 1e-2} if low else {"atol": 1e-4, "rtol": 1e-4}
    allclose, isfinite = torch.allclose, torch.isfinite  # own references, taken before the solution is imported
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(build_timeout)
    try:
        sol = _import_solution(path)
    except BaseException as e:
        signal.alarm(0)
        return _report({"strict": "error", "detail": "import: " + _describe(e)})
    signal.alarm(run_timeout)
    where = ""
    try:
        for config in smalls:
            for seed in range(1, seeds + 1):
                where = f"{config['name']}/seed {seed}: "
                ref = _reference(source, config)
                init = ref.get_init_inputs()
                torch.manual_seed(seed)
                model = ref.Model(*init)
                _randomise_identity_defaults(model, torch.Generator().manual_seed(seed))
                torch.manual_seed(seed + 1000)
                model_new = sol.ModelNew(*init)
                ref_sd, new_sd = model.state_dict(), model_new.state_dict()
                if ref_sd.keys() == new_sd.keys() and all(ref_sd[k].shape == new_sd[k].shape for k in ref_sd):
                    model_new.load_state_dict(ref_sd, strict=True)
                torch.manual_seed(seed + 2000)
                inputs = ref.get_inputs()
                with torch.no_grad():
                    out_ref = model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
                    args = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
                    if seed % 3 == 0:
                        args = [_non_contiguous(x) for x in args]
                    out = model_new(*args)
                if type(out) is not torch.Tensor:
                    raise AssertionError(f"output type {type(out).__name__}")
                if out.shape != out_ref.shape:
                    return _report({"strict": "fail", "detail": where + "shape"})
                if out.dtype != out_ref.dtype:
                    return _report({"strict": "fail", "detail": where + f"dtype {out.dtype}"})
                if not bool(isfinite(out).all()) and bool(isfinite(out_ref).all()):
                    return _report({"strict": "fail", "detail": where + "non-finite"})
                if not allclose(out_ref, out, atol=tol["atol"], rtol=tol["rtol"]):
                    diff = (out.double() - out_ref.double()).abs().max().item()
                    return _report({"strict": "fail", "detail": where + f"max abs diff {diff:.3g}"})
        signal.alarm(0)
        return _report({"strict": "pass", "detail": f"{len(smalls)} config(s) x {seeds} seeds, tol {tol['atol']:g}/{tol['rtol']:g}"})
    except BaseException as e:
        signal.alarm(0)
        return _report({"strict": "error", "detail": where + _describe(e)})


# ---------------------------------------------------------------- parent side


def run_child(mode, entry, args, env):
    path = os.path.join(CORPUS, entry["file"])
    cmd = [sys.executable, os.path.abspath(__file__), "--child", mode, path, entry["task"],
           "--build-timeout", str(args.build_timeout), "--timeout", str(args.timeout), "--seeds", str(args.seeds)]
    with tempfile.TemporaryDirectory(prefix="kmc_naive_") as scratch:
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True,
                                  timeout=args.build_timeout + args.timeout + 60)
        except subprocess.TimeoutExpired:
            return {mode: "error", "detail": "killed: no answer in time", "seconds": time.monotonic() - t0}
        seconds = time.monotonic() - t0
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARK):
            result = json.loads(line[len(MARK):])
            result["seconds"] = seconds
            return result
    if proc.returncode < 0:
        detail = f"killed by {signal.Signals(-proc.returncode).name}"
    else:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        detail = f"exit {proc.returncode}: {tail[:90]}"
    return {mode: "error", "detail": detail, "seconds": seconds}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="run the manifest entries whose file contains this")
    ap.add_argument("--strict", action="store_true", help="add the strict numerical column")
    ap.add_argument("--timeout", type=int, default=10, help="seconds for the calls of one file")
    ap.add_argument("--build-timeout", type=int, default=300, help="seconds for importing (building) one file")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per configuration of the strict check")
    ap.add_argument("--child", nargs=3, metavar=("MODE", "FILE", "TASK"), help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        mode, path, task_id = args.child
        if mode == "naive":
            child_naive(path, task_id, args.build_timeout, args.timeout)
        else:
            child_strict(path, task_id, args.build_timeout, args.timeout, args.seeds)
        return 0

    with open(os.path.join(CORPUS, "manifest.json")) as f:
        manifest = json.load(f)
    env = dict(os.environ)
    env.setdefault("TORCH_EXTENSIONS_DIR", "/tmp/kmc_torch_extensions")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    header = "| file | task | naive | naive detail | naive speedup | expected verdict | manifest naive |"
    if args.strict:
        header += " strict | strict detail |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    problems = []
    for entry in manifest:
        if args.only not in entry["file"]:
            continue
        r = run_child("naive", entry, args, env)
        speed = r.get("speedup")
        speed = "" if speed is None else ("inf" if math.isinf(speed) else f"{speed:.2f}x")
        want = entry.get("naive", "?")
        ok = r["naive"] == want
        if not ok:
            problems.append(f"{entry['file']}: naive {r['naive']}, manifest says {want}")
        row = (f"| {entry['file']} | {entry['task']} | {r['naive']} | {r['detail']} | {speed} | {entry['expect']} | "
               f"{want}{'' if ok else ' MISMATCH'} |")
        if args.strict:
            s = run_child("strict", entry, args, env)
            row += f" {s['strict']} | {s['detail']} |"
            if entry["file"].startswith("honest/") and s["strict"] != "pass":
                problems.append(f"{entry['file']}: strict {s['strict']} ({s['detail']})")
        print(row, flush=True)
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
