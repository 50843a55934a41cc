#!/usr/bin/env python3
"""Build and check the honest GPU solutions against their tasks' references, without the workbench.

usage: python3 check_solutions_standalone.py TASKS_DIR SOLUTIONS_DIR OUT_DIR
           [--budget-s 330] [--seeds 2] [--jobs 8] [--inputs cuda|cpu] [--only TASK ...] [--keep-builds]

Run it on a machine with a CUDA GPU (torch with CUDA, nvcc and ninja). The solutions are SOLUTIONS_DIR/honest/*.py
(the task is the file's stem, or the `task` of its entry in SOLUTIONS_DIR/manifest.json).

1. Build: every solution is imported (its load_inline call compiles it) in a pool of --jobs spawned processes,
   each solution with its own TORCH_EXTENSIONS_DIR under OUT_DIR/ext/<name> and MAX_JOBS=2; TORCH_CUDA_ARCH_LIST
   is set to the GPU's capability so the later import reuses the build.
2. Check: a spawned checker process imports each built solution and, for every configuration of its task (the
   module constants as written, "default", then every [[configs]] entry, whose values override the module
   constants) and --seeds seeds, builds Model and ModelNew from get_init_inputs() after the same
   torch.manual_seed, copies the reference's state_dict into ModelNew when keys and shapes match (as the
   verifier does), runs both on the same inputs (each side gets its own clone) and compares every output:
   type, shape, dtype, finiteness and torch.allclose with the task's tolerance (or the dtype default: fp32 1e-4,
   fp16/bf16 1e-2). TF32 is off for the references. With --inputs cuda (the default) get_inputs() and the
   models' constructors run under `with torch.device("cuda")`: same distributions and semantics as the
   verifier's CPU-then-cuda inputs, minutes faster for the large default shapes; --inputs cpu is the faithful,
   slow way. For the default configuration the forward time of both sides (median of 3, after a warm-up) is
   reported too.
   A solution that raises is a failed row; a sticky CUDA error, a crash or a hang (--solution-timeout-s) ends
   the checker process and a fresh one continues with the next solution.
3. Report: a table (task, configs ok, max abs err, tol use = max |out - ref| / (atol + rtol |ref|), build s,
   solution / reference ms, status) on stdout, the details in OUT_DIR/check-solutions.json, failing build logs
   in OUT_DIR/build-logs/. The build trees under OUT_DIR/ext are deleted at the end unless --keep-builds.

Work stops being started when the --budget-s wall-clock budget (from the script's start) is nearly spent; what
was not reached is reported as such. Exit status: 0 when every solution built and passed every configuration.

Testing this script without a GPU: KM_CHECK_DEVICE=cpu runs the same flow on the CPU (no CUDA calls, wall-clock
timing); point it at a solutions folder whose "solutions" need no CUDA build.
"""
import argparse
import contextlib
import glob
import importlib.util
import json
import math
import multiprocessing as mp
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

T0 = time.time()
DEV = os.environ.get("KM_CHECK_DEVICE", "cuda")  # "cpu" only to smoke-test this script without a GPU
DTYPE_TOL = {"float32": (1e-4, 1e-4), "float64": (1e-4, 1e-4), "float16": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2),
             "mixed": (1e-4, 1e-4)}


def load_toml(path):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    with open(path, "rb") as f:
        return tomllib.load(f)


def load_module(path, name, overrides=None):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(name, None)
    for k, v in (overrides or {}).items():
        setattr(mod, k, v)
    return mod


def safe_name(s):
    return re.sub(r"\W", "_", s)


def discover(tasks_dir, solutions_dir, only):
    manifest = {}
    mpath = os.path.join(solutions_dir, "manifest.json")
    if os.path.isfile(mpath):
        with open(mpath) as f:
            for e in json.load(f):
                manifest[os.path.normpath(e["file"])] = e["task"]
    jobs = []
    for path in sorted(glob.glob(os.path.join(solutions_dir, "honest", "*.py"))):
        rel = os.path.normpath(os.path.relpath(path, solutions_dir))
        task = manifest.get(rel, os.path.splitext(os.path.basename(path))[0])
        if only and task not in only:
            continue
        job = {"file": os.path.abspath(path), "rel": rel, "task": task, "stem": safe_name(os.path.basename(path)[:-3])}
        task_dir = os.path.join(tasks_dir, task)
        try:
            meta = load_toml(os.path.join(task_dir, "task.toml"))
        except (OSError, ValueError) as e:
            job["error"] = f"task {task}: {e}"
            jobs.append(job)
            continue
        tol = meta.get("tolerance")
        atol, rtol = DTYPE_TOL.get(meta.get("dtype", "float32"), (1e-4, 1e-4))
        if tol:
            atol, rtol = float(tol.get("atol", atol)), float(tol.get("rtol", rtol))
        job.update(reference=os.path.abspath(os.path.join(task_dir, "reference.py")), atol=atol, rtol=rtol,
                   configs=[{"name": "default", "values": {}}] +
                           [{"name": c["name"], "values": {k: v for k, v in c.items() if k != "name"}}
                            for c in meta.get("configs", [])])
        jobs.append(job)
    return jobs


# ------------------------------------------------------------------------------------------------ build phase

def build_one(job, ext_root, arch):
    """Runs in a spawned pool process: import the solution, which builds its extension."""
    ext_dir = os.path.join(ext_root, job["stem"])
    os.makedirs(ext_dir, exist_ok=True)
    os.environ["TORCH_EXTENSIONS_DIR"] = ext_dir
    os.environ["MAX_JOBS"] = "2"
    os.environ["TORCH_CUDA_ARCH_LIST"] = arch
    t = time.time()
    try:
        load_module(job["file"], "_km_build_" + job["stem"])
        return {"ok": True, "seconds": time.time() - t}
    except BaseException as e:  # noqa: BLE001 - a failed build is a result, not the end of the pool
        return {"ok": False, "seconds": time.time() - t,
                "error": f"{type(e).__name__}: {e}"[-6000:] + "\n" + traceback.format_exc()[-2000:]}


def build_all(jobs, ext_root, arch, n_procs, deadline):
    ctx = mp.get_context("spawn")
    results = {}
    todo = [j for j in jobs if "error" not in j]
    # longest sources first, so the last wave is short
    todo.sort(key=lambda j: -os.path.getsize(j["file"]))
    pool = ctx.Pool(processes=max(1, min(n_procs, len(todo) or 1)))
    try:
        pending = {j["file"]: pool.apply_async(build_one, (j, ext_root, arch)) for j in todo}
        for j in todo:
            left = deadline - time.time()
            try:
                results[j["file"]] = pending[j["file"]].get(timeout=max(1.0, left))
            except mp.TimeoutError:
                results[j["file"]] = {"ok": False, "seconds": time.time() - T0, "error": "build not finished "
                                      "within the budget"}
            except Exception as e:  # noqa: BLE001 - a worker that died
                results[j["file"]] = {"ok": False, "seconds": 0.0, "error": f"build worker failed: {e!r}"}
    finally:
        pool.terminate()
        pool.join()
    return results


# ------------------------------------------------------------------------------------------------ check phase

def _to_dev(x):
    import torch
    if isinstance(x, torch.Tensor):
        return x.to(DEV)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_dev(e) for e in x)
    return x


def _sync():
    if DEV == "cuda":
        import torch
        torch.cuda.synchronize()


def _clone(x):
    import torch
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, (list, tuple)):
        return type(x)(_clone(e) for e in x)
    return x


def _outputs(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _compare(outs, refs, atol, rtol):
    import torch
    if len(outs) != len(refs):
        return False, math.inf, math.inf, f"{len(outs)} outputs, reference has {len(refs)}"
    worst_abs, worst_use, msg = 0.0, 0.0, ""
    ok = True
    for i, (o, r) in enumerate(zip(outs, refs)):
        if type(o) is not torch.Tensor:
            return False, math.inf, math.inf, f"output {i} is {type(o).__name__}, not torch.Tensor"
        if o.device.type != DEV:
            return False, math.inf, math.inf, f"output {i} is on {o.device}"
        if o.shape != r.shape:
            return False, math.inf, math.inf, f"output {i} shape {tuple(o.shape)} != {tuple(r.shape)}"
        if o.dtype != r.dtype:
            return False, math.inf, math.inf, f"output {i} dtype {o.dtype} != {r.dtype}"
        if o.numel() == 0:
            continue
        if r.is_floating_point():
            if not torch.isfinite(o).all() and torch.isfinite(r).all():
                ok, msg = False, msg or f"output {i} has NaN/Inf"
            diff = (o.float() - r.float()).abs()
            use = (diff / (atol + rtol * r.float().abs())).nan_to_num(nan=math.inf).max().item()
            worst_abs = max(worst_abs, diff.nan_to_num(nan=math.inf).max().item())
            worst_use = max(worst_use, use)
            if not torch.allclose(o, r, atol=atol, rtol=rtol):
                ok, msg = False, msg or f"output {i} not allclose (atol={atol}, rtol={rtol})"
        else:
            if not torch.equal(o, r):
                ok, msg = False, msg or f"output {i} differs (exact comparison)"
    return ok, worst_abs, worst_use, msg


def _time_ms(fn, runs=3):
    import torch
    fn()
    _sync()
    ts = []
    for _ in range(runs):
        if DEV != "cuda":
            t = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t) * 1e3)
            continue
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return sorted(ts)[len(ts) // 2]


def _cuda_usable():
    import torch
    if DEV != "cuda":
        return True
    try:
        torch.cuda.synchronize()
        (torch.ones(1, device="cuda") + 1).item()
        return True
    except Exception:  # noqa: BLE001 - a sticky error makes every CUDA call raise
        return False


def check_solution(job, ext_root, arch, seeds, inputs_dev, deadline):
    import torch
    res = {"file": job["rel"], "task": job["task"], "trials": [], "configs": {}, "ok": False}
    os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(ext_root, job["stem"])
    os.environ["MAX_JOBS"] = "2"
    os.environ["TORCH_CUDA_ARCH_LIST"] = arch
    for lock in glob.glob(os.path.join(ext_root, job["stem"], "*", "lock")):
        os.remove(lock)  # a stale baton would make load_inline wait forever
    t = time.time()
    sol = load_module(job["file"], "_km_sol_" + job["stem"])
    res["import_s"] = time.time() - t
    gen = (lambda: torch.device(DEV)) if inputs_dev == "cuda" and DEV == "cuda" else contextlib.nullcontext
    all_ok = True
    for cfg in job["configs"]:
        name = cfg["name"]
        res["configs"][name] = {"ok": True, "trials": 0}
        for si, seed in enumerate(seeds):
            if time.time() > deadline:
                res["configs"][name]["ok"] = False
                res["configs"][name]["note"] = "not reached (budget)"
                all_ok = False
                break
            trial = {"config": name, "seed": seed}
            t = time.time()
            ref = load_module(job["reference"], f"_km_ref_{safe_name(job['task'])}_{safe_name(name)}", cfg["values"])
            torch.manual_seed(seed)
            with gen():
                inputs = ref.get_inputs()
            inputs = _to_dev(inputs)
            init = ref.get_init_inputs()
            torch.manual_seed(seed)
            with gen():
                model = ref.Model(*init)
            model = model.to(DEV).eval()
            torch.manual_seed(seed)
            with gen():
                new = sol.ModelNew(*init)
            new = new.to(DEV).eval()
            a, b = model.state_dict(), new.state_dict()
            copied = sorted(a) == sorted(b) and all(a[k].shape == b[k].shape for k in a)
            if copied and a:
                new.load_state_dict(a, strict=True)
            trial["state_dict_copied"] = bool(copied and a)
            with torch.no_grad():
                refs = _outputs(model(*_clone(inputs)))
                _sync()
                outs = _outputs(new(*_clone(inputs)))
                _sync()
            ok, max_abs, use, msg = _compare(outs, refs, job["atol"], job["rtol"])
            trial.update(ok=ok, max_abs=max_abs, tol_use=use, message=msg)
            if name == "default" and si == 0:
                with torch.no_grad():
                    x1, x2 = _clone(inputs), _clone(inputs)
                    trial["solution_ms"] = _time_ms(lambda: new(*x1))
                    trial["reference_ms"] = _time_ms(lambda: model(*x2))
                    del x1, x2
            trial["seconds"] = time.time() - t
            res["trials"].append(trial)
            res["configs"][name]["trials"] += 1
            if not ok:
                res["configs"][name]["ok"] = False
                res["configs"][name].setdefault("note", msg)
                all_ok = False
            del inputs, model, new, refs, outs, a, b
            if DEV == "cuda":
                torch.cuda.empty_cache()
    res["ok"] = all_ok
    return res


def check_worker(jobs, ext_root, arch, seeds, inputs_dev, deadline, results_path):
    """Runs in a spawned process: check the jobs in order, one JSON line per event."""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False  # the references' own fp32 numerics
    torch.backends.cudnn.allow_tf32 = False

    def emit(obj):
        with open(results_path, "a") as f:
            f.write(json.dumps(obj) + "\n")

    for job in jobs:
        if time.time() > deadline:
            emit({"event": "done", "file": job["rel"], "result": {"file": job["rel"], "task": job["task"],
                                                                  "ok": False, "error": "not reached (budget)"}})
            continue
        emit({"event": "start", "file": job["rel"], "t": time.time()})
        try:
            res = check_solution(job, ext_root, arch, seeds, inputs_dev, deadline)
        except BaseException as e:  # noqa: BLE001 - a failing solution is a row, not the end of the run
            res = {"file": job["rel"], "task": job["task"], "ok": False,
                   "error": f"{type(e).__name__}: {e}"[-3000:], "traceback": traceback.format_exc()[-3000:]}
            if not _cuda_usable():
                res["error"] += " [CUDA context unusable: continuing in a fresh process]"
                emit({"event": "done", "file": job["rel"], "result": res})
                os._exit(3)
        emit({"event": "done", "file": job["rel"], "result": res})
    os._exit(0)


def check_all(jobs, ext_root, arch, seeds, inputs_dev, deadline, results_path, solution_timeout):
    ctx = mp.get_context("spawn")
    results = {}
    remaining = list(jobs)
    while remaining:
        if time.time() > deadline:
            for j in remaining:
                results[j["rel"]] = {"file": j["rel"], "task": j["task"], "ok": False, "error": "not reached (budget)"}
            break
        open(results_path, "w").close()
        proc = ctx.Process(target=check_worker,
                           args=(remaining, ext_root, arch, seeds, inputs_dev, deadline, results_path))
        proc.start()
        started = {}
        killed_for = None
        while proc.is_alive():
            proc.join(timeout=1.0)
            events = _read_events(results_path)
            started = {e["file"]: e["t"] for e in events if e["event"] == "start"}
            done = {e["file"] for e in events if e["event"] == "done"}
            running = [f for f in started if f not in done]
            now = time.time()
            if running and (now - started[running[0]] > solution_timeout or now > deadline + 20):
                killed_for = running[0]
                proc.kill()
                proc.join()
                break
        events = _read_events(results_path)
        done = {}
        for e in events:
            if e["event"] == "done":
                done[e["file"]] = e["result"]
        results.update(done)
        started = [e["file"] for e in events if e["event"] == "start"]
        crashed = [f for f in started if f not in done]
        for f in crashed:
            task = next(j["task"] for j in remaining if j["rel"] == f)
            why = ("killed: no result within the per-solution timeout or the budget" if f == killed_for
                   else f"checker process died (exit code {proc.exitcode})")
            results[f] = {"file": f, "task": task, "ok": False, "error": why}
        before = len(remaining)
        remaining = [j for j in remaining if j["rel"] not in results]
        if remaining and len(remaining) == before:
            for j in remaining:  # the checker died before finishing anything: do not loop forever
                results[j["rel"]] = {"file": j["rel"], "task": j["task"], "ok": False,
                                     "error": f"checker process ended without a result (exit code {proc.exitcode})"}
            break
    return results


def _read_events(path):
    events = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        events.append(json.loads(line))
                    except ValueError:
                        pass  # a line being written
    except OSError:
        pass
    return events


# ------------------------------------------------------------------------------------------------ main

def environment():
    import torch
    env = {"torch": torch.__version__, "cuda": torch.version.cuda,
           "gpu": torch.cuda.get_device_name(0) if DEV == "cuda" and torch.cuda.is_available() else DEV,
           "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    try:
        from torch.utils.cpp_extension import CUDA_HOME
        nvcc = os.path.join(CUDA_HOME or "/usr/local/cuda", "bin", "nvcc")
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30).stdout
        env["nvcc"] = (re.findall(r"release [^\n]*", out) or ["?"])[0]
    except (OSError, subprocess.SubprocessError, ImportError):
        env["nvcc"] = None
    return env


def fmt(x, spec):
    width = int(re.match(r"\d*", spec).group() or 0)
    return format(x, spec) if isinstance(x, (int, float)) and math.isfinite(x) else "-".rjust(width)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tasks_dir")
    ap.add_argument("solutions_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--budget-s", type=float, default=330.0)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--inputs", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--solution-timeout-s", type=float, default=150.0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--keep-builds", action="store_true")
    args = ap.parse_args(argv[1:])

    import torch
    if DEV == "cuda" and not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    major, minor = torch.cuda.get_device_capability(0) if DEV == "cuda" else (9, 0)
    arch = os.environ.get("TORCH_CUDA_ARCH_LIST") or f"{major}.{minor}"
    os.environ["TORCH_CUDA_ARCH_LIST"] = arch
    os.environ["MAX_JOBS"] = "2"
    out_dir = os.path.abspath(args.out_dir)
    ext_root = os.path.join(out_dir, "ext")
    os.makedirs(ext_root, exist_ok=True)
    env = environment()
    deadline = T0 + args.budget_s
    seeds = list(range(args.seeds))

    jobs = discover(args.tasks_dir, args.solutions_dir, set(args.only) if args.only else None)
    print(f"{len(jobs)} solutions; {env['gpu']}, torch {env['torch']} (CUDA {env['cuda']}), nvcc {env['nvcc']}; "
          f"arch {arch}; budget {args.budget_s:.0f} s", flush=True)

    # 1. build, in parallel; leave a quarter of the budget (at least 90 s) for the checks
    t_build = time.time()
    build_deadline = deadline - max(90.0, args.budget_s / 4)
    builds = build_all(jobs, ext_root, arch, args.jobs, build_deadline)
    print(f"builds: {sum(b['ok'] for b in builds.values())}/{len(jobs)} ok in {time.time() - t_build:.0f} s",
          flush=True)
    logs = os.path.join(out_dir, "build-logs")
    for j in jobs:
        b = builds.get(j["file"])
        if b and not b["ok"]:
            os.makedirs(logs, exist_ok=True)
            with open(os.path.join(logs, j["stem"] + ".log"), "w") as f:
                f.write(b.get("error", ""))

    # 2. check, in a fresh process per crash
    t_check = time.time()
    to_check = [j for j in jobs if "error" not in j and builds.get(j["file"], {}).get("ok")]
    checks = check_all(to_check, ext_root, arch, seeds, args.inputs, deadline - 10, os.path.join(out_dir,
                       "check-events.jsonl"), args.solution_timeout_s)
    print(f"checks: {time.time() - t_check:.0f} s", flush=True)

    # 3. report
    rows = []
    for j in jobs:
        b = builds.get(j["file"], {})
        c = checks.get(j["rel"], {})
        row = {"task": j["task"], "file": j["rel"], "build_ok": bool(b.get("ok")), "build_s": b.get("seconds"),
               "check": c}
        if "error" in j:
            row["status"] = "TASK ERROR"
        elif not b.get("ok"):
            row["status"] = "BUILD FAIL"
        elif c.get("ok"):
            row["status"] = "ok"
        else:
            row["status"] = "FAIL"
        rows.append(row)
    with open(os.path.join(out_dir, "check-solutions.json"), "w") as f:
        json.dump({"environment": env, "seeds": seeds, "inputs": args.inputs, "rows": rows,
                   "builds": {os.path.relpath(k, os.path.abspath(args.solutions_dir)): v for k, v in builds.items()}},
                  f, indent=1, default=str)
    if not args.keep_builds:
        shutil.rmtree(ext_root, ignore_errors=True)

    print(f"\n{env['gpu']}, torch {env['torch']} (CUDA {env['cuda']}), {env['date_utc']} UTC; {len(seeds)} seeds per "
          f"configuration, inputs generated on {args.inputs if DEV == 'cuda' else DEV}, TF32 off; tol use = max |out-ref| / (atol + rtol|ref|)")
    print(f"{'task':26} {'configs ok':>10} {'max abs err':>11} {'tol use':>8} {'build s':>7} {'sol ms':>8} "
          f"{'ref ms':>8}  status")
    n_ok = 0
    for r in rows:
        c = r["check"]
        cfgs = c.get("configs", {})
        n_cfg = len(cfgs) if cfgs else len(next((j["configs"] for j in jobs if j["rel"] == r["file"]), []))
        ok_cfg = sum(1 for v in cfgs.values() if v.get("ok"))
        trials = c.get("trials", [])
        max_abs = max([t["max_abs"] for t in trials], default=float("nan"))
        use = max([t["tol_use"] for t in trials], default=float("nan"))
        timed = next((t for t in trials if "solution_ms" in t), {})
        print(f"{r['task']:26} {f'{ok_cfg}/{n_cfg}':>10} {fmt(max_abs, '11.2e')} {fmt(use, '8.3f')} "
              f"{fmt(r['build_s'], '7.0f')} {fmt(timed.get('solution_ms'), '8.3f')} "
              f"{fmt(timed.get('reference_ms'), '8.3f')}  {r['status']}")
        n_ok += r["status"] == "ok"
        notes = [f"{k}: {v['note']}" for k, v in cfgs.items() if not v.get("ok") and v.get("note")]
        if c.get("error"):
            notes.append(c["error"].strip().splitlines()[-1][:300] if c["error"].strip() else "error")
        if r["status"] == "BUILD FAIL":
            err = builds.get(next(j["file"] for j in jobs if j["rel"] == r["file"]), {}).get("error", "")
            lines = list(dict.fromkeys(ln.strip() for ln in err.splitlines() if "error" in ln.lower()))[:3]
            notes += [ln[:200] for ln in lines] or [err[-300:]]
        for n in notes:
            print(f"{'':26}   {n}")
    print(f"{n_ok}/{len(rows)} solutions passed every configuration; total {time.time() - T0:.0f} s")
    return 0 if n_ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
