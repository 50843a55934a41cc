"""One verification: plan, reference child, solution child, judgement. Runs in the worker."""
import json
import os
import random
import shutil

import torch

from . import build, buildcache, buildstage, child_reference, tools, child_solution, judge, pch, spawn, stats, tensorio

DEFAULT_TOLERANCE = {"float32": (1e-4, 1e-4), "float64": (1e-7, 1e-7), "float16": (1e-2, 1e-2),
                     "bfloat16": (1e-2, 1e-2)}
LIBRARY_ERROR_SHARE = 0.10
LIBRARY_WARNING_SHARE = 0.50


class Verification:
    def __init__(self, worker, req, phase):
        self.worker = worker
        self.phase = phase
        task = req.get("task")
        sol = req.get("solution")
        opts = req.get("options") or {}
        if not isinstance(task, dict) or not isinstance(task.get("reference"), str):
            raise ValueError("verify needs task.reference (the reference program's source)")
        if not isinstance(sol, dict) or not isinstance(sol.get("source"), str):
            raise ValueError("verify needs solution.source")
        self.task, self.sol, self.opts = task, sol, opts
        device = opts.get("device", "auto")
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"unknown device '{device}'")
        if device == "auto":
            device = "cuda" if worker.cuda else "cpu"
        if device == "cuda" and not worker.cuda:
            raise ValueError("device cuda was asked for, but this worker sees no usable GPU")
        self.device = device
        self.dir = os.path.join(worker.scratch_root, f"v{os.getpid()}-{random.getrandbits(40):010x}")
        os.makedirs(self.dir)
        cpu = device == "cpu"
        self.limits = {"timeout_s": float(opts.get("timeout_s", 300)), "memory_mb": int(opts.get("memory_mb", 16384)),
                       "file_mb": int(opts.get("file_mb", 1024))}
        self.configs, self.skipped = self._configs(task, opts, cpu)
        if not self.configs:
            raise ValueError("no configuration to run: " + "; ".join(s["name"] + ": " + s["reason"]
                                                                    for s in self.skipped))
        rng = random.SystemRandom()
        n_seeds = max(1, int(opts.get("seeds", 3)))
        self.seeds = [rng.randrange(1, 2**31) for _ in range(n_seeds)]
        self.init_seed = rng.randrange(1, 2**31)
        tol = task.get("tolerance")
        if isinstance(tol, dict) and "atol" in tol and "rtol" in tol:
            self.atol, self.rtol = float(tol["atol"]), float(tol["rtol"])
            self.tol_source = "task"
        else:
            self.atol, self.rtol = DEFAULT_TOLERANCE.get(task.get("dtype", "float32"), (1e-4, 1e-4))
            self.tol_source = f"default for {task.get('dtype', 'float32')}"
        timing_ci = self._timing_config_index()
        self.timing = {"config_index": timing_ci, "seed": rng.randrange(1, 2**31),
                       "runs": int(opts.get("timing_runs", 10 if cpu else 100)),
                       "warmup": int(opts.get("warmup_runs", 2 if cpu else 10))}
        cache_root = os.path.abspath(opts.get("build_cache") or os.path.join(worker.scratch_root, "build-cache"))
        self.cache_root = cache_root
        self.cache_max_bytes = int(float(opts.get("build_cache_max_gb", 20)) * (1 << 30))
        self.build_timeout_s = float(opts.get("build_timeout_s", 600))
        if opts.get("pch", True):
            worker.ensure_pch(cache_root)
        self.build_dir = build.cache_dir(cache_root, sol["source"])
        os.makedirs(self.build_dir, exist_ok=True)
        buildcache.touch(self.build_dir)

    @staticmethod
    def _configs(task, opts, cpu):
        configs = [{"name": "default", "values": {}}] + [
            {"name": c.get("name", ""), "values": c.get("values") or {}} for c in task.get("configs") or []]
        wanted = opts.get("configs")
        chosen, skipped = [], []
        for c in configs:
            if wanted:
                ok = c["name"] in wanted
                reason = "not asked for"
            elif cpu:
                ok = c["name"].startswith("small")
                reason = "sized for a GPU (the CPU runs the small* configurations)"
            else:
                ok, reason = True, ""
            (chosen if ok else skipped).append(c if ok else {"name": c["name"], "reason": reason})
        return chosen, skipped

    def _timing_config_index(self):
        for i, c in enumerate(self.configs):
            if c["name"] == "default":
                return i
        return 0

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        buildcache.evict(self.cache_root, self.cache_max_bytes)

    def _plan(self):
        plan = {"device": self.device, "configs": self.configs, "seeds": self.seeds, "init_seed": self.init_seed,
                "timing": self.timing, "reference": self.task["reference"], "threads": self.worker.threads,
                "profile": bool(self.opts.get("profile", True)),
                "compile_baseline": bool(self.opts.get("compile_baseline", False)),
                "bytes_formula": self.task.get("bytes_formula") or "", "flops_formula": self.task.get("flops_formula") or ""}
        gbps = (self.worker.device_facts.get("env") or {}).get("copy_gbps")
        if gbps:
            plan["copy_gbps"] = gbps
        return plan

    # -- the run ------------------------------------------------------------------------------------------------
    def run(self):
        self.durations = {}
        v = self._run()
        d = self.durations
        d["measuring_s"] = round(d.pop("ref_timing_s", 0.0) + d.pop("sol_timing_s", 0.0), 4)
        v["durations"] = d
        v["outcome"] = v["status"]  # what the outputs alone say
        if v["status"] not in ("INVALID_REFERENCE", "SYSTEM_ERROR") and any(
                c.get("severity") == "error" for c in v["checks"]):
            v["status"] = "REWARD_HACK"
        return v

    def _run(self):
        v = {"status": "PASSED", "checks": [], "trials": [], "configs_run": [c["name"] for c in self.configs],
             "configs_skipped": self.skipped, "device": self.device,
             "tolerance": {"atol": self.atol, "rtol": self.rtol, "source": self.tol_source},
             "seeds": self.seeds}
        self.phase("reference")
        ref_dir = os.path.join(self.dir, "reference")
        plan = self._plan()
        ref = spawn.run_child(ref_dir, [], self.limits, self.device == "cpu", child_reference.body(plan, ref_dir))
        res = ref.get("result") or {}
        self.durations["reference_s"] = round(ref["seconds"], 4)
        self.durations["ref_timing_s"] = float((res.get("timing") or {}).get("seconds") or 0.0)
        if ref["ended"] != "exit" or "error" in res or not res:
            v["status"] = "INVALID_REFERENCE"
            v["error"] = self._child_error(ref, "the reference")
            return v
        if self.device == "cuda":
            facts = self.worker.device_facts.setdefault("env", {})
            facts.update({"launch_floor_ms": res.get("launch_floor_ms"), "gpu_props": res.get("gpu")})
            if res.get("copy_gbps"):
                facts["copy_gbps"] = res["copy_gbps"]
            self.timing["l2_bytes"] = (res.get("gpu") or {}).get("l2_bytes")
        v["isolation"] = res.get("isolation")

        stage = buildstage.build_solution(self.cache_root, self.sol["source"], self.sol.get("path") or "solution.py",
                                          self.worker.toolchain(), self.limits, os.path.join(self.dir, "build"),
                                          self.build_timeout_s, self.phase)
        self.durations["build_s"] = round(stage["seconds"], 4)
        if not stage["ok"]:
            v["status"] = "TIMEOUT" if stage.get("timeout") else "COMPILE_ERROR"
            v["build"] = {k: stage[k] for k in ("ok", "seconds", "log", "generated", "calls") if k in stage}
            v["error"] = {"kind": "build", "message": "the extension did not build" if not stage.get("timeout")
                          else stage["log"].splitlines()[0], "log": stage["log"][-3000:]}
            return v

        self.phase("solution")
        sol_dir = os.path.join(self.dir, "solution")
        plan = self._plan()
        plan.update({"solution": self.sol["source"], "solution_path": self.sol.get("path") or "solution.py",
                     "build_dir": self.build_dir, "expected": [c["outputs"] for c in res["configs"]],
                     "ext_root": self.cache_root, "toolchain": self.worker.toolchain()})
        os.environ["TORCH_EXTENSIONS_DIR"] = self.build_dir  # inherited by the forked child
        sol = spawn.run_child(sol_dir, [self.build_dir], self.limits, self.device == "cpu",
                              child_solution.body(plan, sol_dir))
        sres = sol.get("result") or {}
        self.durations["solution_s"] = round(sol["seconds"], 4)
        self.durations["sol_timing_s"] = float((sres.get("timing") or {}).get("seconds") or 0.0) \
            if isinstance(sres.get("timing"), dict) else 0.0
        v["isolation"] = sres.get("isolation") or v.get("isolation")
        for key in ("build", "weights", "own_kernels", "profile"):
            if key in sres:
                v[key] = sres[key]
        if isinstance(v.get("build"), dict):
            v["build"]["stage"] = {k: stage[k] for k in ("seconds", "calls", "note") if k in stage}
        v["checks"].extend(f for f in sres.get("findings", []) if isinstance(f, dict))
        if sol["ended"] == "timeout":
            v["status"] = "TIMEOUT"
            v["error"] = {"kind": "timeout", "message": f"no result within {self.limits['timeout_s']:g} s "
                          f"(it was at: {sol['phase']})", "log": sol["log_tail"]}
            return v
        err = sres.get("error")
        if err and err.get("kind") in ("build", "syntax"):
            v["status"] = "COMPILE_ERROR"
            v["error"] = dict(err, log=sol["log_tail"][-3000:])
            return v
        if sol["ended"] != "exit" or err or not sres:
            v["status"] = "RUNTIME_ERROR"
            v["error"] = self._child_error(sol, "the solution")
            try:  # the trials that finished before the failure are evidence; their judging is not essential
                self._judge(v, ref_dir, res, sol_dir, sres, partial=True)
            except RuntimeError as e:
                v["error"]["judging"] = str(e)[:500]
            return v
        self._judge(v, ref_dir, res, sol_dir, sres)
        if self.device == "cuda" and v["status"] == "PASSED":
            for kind in ("ncu", "memcheck"):
                if self.opts.get(kind):
                    self.phase(kind)
                    v[kind] = tools.run_tool(kind, self, v.get("own_kernels") or [])
        return v

    def _child_error(self, out, who):
        res = out.get("result") or {}
        err = dict(res.get("error") or {})
        if out["ended"] == "timeout":
            err = {"kind": "timeout", "message": f"{who} did not finish within {self.limits['timeout_s']:g} s "
                   f"(at: {out['phase']})"}
        elif out["ended"] == "memory":
            err = {"kind": "memory", "message": f"{who} used more than {self.limits['memory_mb']} MiB "
                   f"(at: {out['phase']})"}
        elif out["ended"] == "signal":
            err = {"kind": "signal", "message": f"{who} was killed by {out.get('signal')} (at: {out['phase']})"}
        elif not err:
            err = {"kind": "exit", "message": f"{who} exited with code {out.get('exit_code')} without a result "
                   f"(at: {out['phase']})"}
        err["log"] = out.get("log_tail", "")[-3000:]
        return err

    def _judge(self, v, ref_dir, res, sol_dir, sres, partial=False):
        """Compares in a child of its own: it may use every core and the GPU (the worker itself must stay free of
        OpenMP pools and CUDA contexts to fork safely). The child never loads solution code."""
        def work(report, phase):
            torch.set_num_threads(self.worker.threads)
            self.judge_device = "cuda" if self.device == "cuda" else "cpu"
            phase("compare")
            ref_outs = self._read_reference(ref_dir, res)
            self._judge_trials(v, ref_outs, sol_dir, sres, partial)
            if not partial:
                self._judge_after(v, ref_outs, res, sol_dir, sres)
            return {"verdict": v}

        out = spawn.run_child(os.path.join(self.dir, "judge"), [], dict(self.limits, file_mb=16), False, work)
        self.durations["judge_s"] = round(out["seconds"], 4)
        judged = (out.get("result") or {}).get("verdict")
        if out["ended"] != "exit" or not isinstance(judged, dict):
            raise RuntimeError("the comparison failed: " + json.dumps(self._child_error(out, "the judge"))[:2000])
        v.clear()
        v.update(judged)

    def _read_reference(self, ref_dir, res):
        outs = {}
        limit = int(self.limits["file_mb"]) << 20
        for ci in range(len(self.configs)):
            for si in range(len(self.seeds)):
                outs[(ci, si)] = tensorio.read(os.path.join(ref_dir, f"ref_{ci}_{si}.bin"), limit)
        outs["timed"] = tensorio.read(os.path.join(ref_dir, "ref_timed.bin"), limit)
        self.ref_timing = res.get("timing") or {}
        self.ref_facts = {k: res.get(k) for k in ("bytes", "flops", "compiled")}
        return outs

    def _read_solution(self, sol_dir, name):
        path = os.path.join(sol_dir, name)
        if not os.path.exists(path):
            return None
        try:
            return tensorio.read(path, int(self.limits["file_mb"]) << 20)
        except (tensorio.FormatError, OSError) as e:
            return e

    def _judge_trials(self, v, ref_outs, sol_dir, sres, partial=False):
        reported = {(t.get("config_index"), t.get("seed_index"), bool(t.get("rerun"))): t
                    for t in sres.get("trials", []) if isinstance(t, dict)}
        worst = None
        partial = partial or any("shape_error" in t for t in reported.values())
        for ci, cfg in enumerate(self.configs):
            for si, seed in enumerate(self.seeds):
                first = None  # the first run's outputs, kept for the determinism re-run of seed 0
                for rerun in ([False, True] if si == 0 else [False]):
                    info = reported.get((ci, si, rerun))
                    rec = {"config": cfg["name"], "seed": seed, "rerun": rerun}
                    if info and "shape_error" in info:
                        rec.update(ok=False, status="INCORRECT_SHAPE", message=info["shape_error"])
                    else:
                        outs = self._read_solution(sol_dir, f"sol_{ci}_{si}{'_rerun' if rerun else ''}.bin")
                        if outs is None:
                            if partial:
                                continue
                            rec.update(ok=False, status="RUNTIME_ERROR", message="no output was written")
                        elif isinstance(outs, Exception):
                            rec.update(ok=False, status="INCORRECT_SHAPE", message=f"unreadable output: {outs}")
                        else:
                            rec.update(judge.compare(ref_outs[(ci, si)], outs, self.atol, self.rtol, self.judge_device))
                            if not rerun:
                                first = outs
                            elif rec["ok"]:
                                if isinstance(first, list) and not judge.same_within(first, outs, self.atol, self.rtol,
                                                                                     self.judge_device):
                                    rec.update(ok=False, status="INCORRECT_NUMERICAL",
                                               message="a re-run on the same inputs gave other values")
                                    rec.setdefault("checks", []).append("correctness.nondeterministic")
                    for c in rec.get("checks", []):
                        if c.startswith("runtime."):
                            self._add(v, c, rec.get("message", ""))
                    v["trials"].append(rec)
                    if not rec.get("ok") and worst is None:
                        worst = rec
        if worst is not None and v["status"] == "PASSED":
            v["status"] = worst.get("status", "INCORRECT_NUMERICAL")
            v["failure"] = {"config": worst["config"], "seed": worst["seed"], "message": worst.get("message", ""),
                            "max_abs": worst.get("max_abs"), "max_rel": worst.get("max_rel")}
            for c in worst.get("checks", []):
                if c.startswith("correctness."):
                    v["checks"].append({"check": c, "severity": "info", "line": 0, "message": worst.get("message")})

    def _add(self, v, check, message, severity="error"):
        if not any(c["check"] == check and c["message"] == message for c in v["checks"]):
            v["checks"].append({"check": check, "severity": severity, "line": 0, "message": message})

    def _judge_after(self, v, ref_outs, res, sol_dir, sres):
        again = self._read_solution(sol_dir, "sol_refagain.bin")
        if isinstance(again, list):
            rec = judge.compare(ref_outs[(0, 0)], again, self.atol, self.rtol, self.judge_device)
            if not rec["ok"]:
                self._add(v, "runtime.reference_disturbed", "the reference, run in the solution's process after it, "
                          "no longer matches its clean run: " + rec.get("message", ""))
        t = sres.get("timing")
        if not isinstance(t, dict):
            return
        # Outputs wrong in the trials are judged there; wrong only while timed is the "shortcut when timed" trick.
        timed_files = (t.get("timed_files") or {}) if v["status"] == "PASSED" else {}
        for idx, name in timed_files.items():
            outs = self._read_solution(sol_dir, name)
            if isinstance(outs, list):
                rec = judge.compare(ref_outs["timed"], outs, self.atol, self.rtol, self.judge_device)
                if not rec["ok"]:
                    self._add(v, "runtime.timed_outputs", f"the output of timed run {int(idx) + 1} is wrong: "
                              + rec.get("message", ""))
        self._timing(v, t, judge_timing=v["status"] == "PASSED")

    def _timing(self, v, t, judge_timing):
        """Figures always; the timing checks only for correct outputs: a wrong solution's speed means nothing."""
        sol_ev = [float(x) for x in t.get("event_ms", [])]
        sol_wall = [float(x) for x in t.get("wall_ms", [])]
        ref_ev = [float(x) for x in self.ref_timing.get("event_ms", [])]
        if not sol_ev or not ref_ev:
            return
        s, r = stats.summary(sol_ev), stats.summary(ref_ev)
        w = stats.summary(sol_wall)
        timing = {"device": self.device, "runs": len(sol_ev), "config": self.configs[self.timing["config_index"]]["name"],
                  "solution_ms": s, "reference_ms": r, "solution_wall_ms": w,
                  "speedup": r["median"] / s["median"] if s["median"] > 0 else None,
                  "speedup_ci95": stats.bootstrap_speedup_ci(ref_ev, sol_ev),
                  "samples_ms": {"solution": sol_ev, "reference": ref_ev}}
        if self.device == "cuda" and judge_timing:
            floor = (self.worker.device_facts.get("env") or {}).get("launch_floor_ms")
            timing["launch_floor_ms"] = floor
            if floor and s["median"] < floor:
                self._add(v, "runtime.below_launch_floor", f"median {s['median']:.4f} ms is below the empty-launch "
                          f"floor of this GPU ({floor:.4f} ms): not a measurement")
            gap = w["median"] - s["median"]
            if t.get("stream_changed") or gap > max(0.05, 0.5 * s["median"]):
                self._add(v, "runtime.side_stream", f"synchronised wall time {w['median']:.4f} ms against event time "
                          f"{s['median']:.4f} ms: work ran outside the measured stream")
            prof = v.get("profile")
            if isinstance(prof, dict) and prof.get("total_ms"):
                share = prof.get("own_kernel_share", 0.0)
                if share < LIBRARY_ERROR_SHARE:
                    self._add(v, "runtime.library_only", f"only {share:.0%} of the GPU time is in the solution's own "
                              "kernels")
                elif share < LIBRARY_WARNING_SHARE:
                    self._add(v, "runtime.library_only", f"{share:.0%} of the GPU time is in the solution's own "
                              "kernels", severity="warning")
        self._bounds(v, timing, s["median"], judge_timing)
        v["timing"] = timing

    def _bounds(self, v, timing, sol_median, judge_timing):
        """torch.compile as a second baseline; the speed-of-light floor from the task's byte count and the measured
        copy bandwidth: a median under it is flagged for a human."""
        facts = getattr(self, "ref_facts", {})
        compiled = facts.get("compiled")
        if isinstance(compiled, dict):
            if compiled.get("event_ms"):
                c = stats.summary([float(x) for x in compiled["event_ms"]])
                timing["compiled_ms"] = c
                timing["speedup_vs_compiled"] = c["median"] / sol_median if sol_median > 0 else None
            else:
                timing["compiled_error"] = compiled.get("error")
        if facts.get("flops"):
            timing["flops"] = facts["flops"]
            timing["tflops"] = facts["flops"] / (sol_median * 1e-3) / 1e12 if sol_median > 0 else None
        gbps = (self.worker.device_facts.get("env") or {}).get("copy_gbps")
        if facts.get("bytes") and gbps and self.device == "cuda":
            floor_ms = facts["bytes"] / (gbps * 1e9) * 1e3
            timing["bytes"] = facts["bytes"]
            timing["memory_floor_ms"] = floor_ms
            if judge_timing and sol_median < 0.8 * floor_ms:
                self._add(v, "timing.implausible", f"median {sol_median:.4f} ms is under the memory floor of this task "
                          f"on this GPU ({facts['bytes'] / 1e6:.1f} MB at {gbps:.0f} GB/s = {floor_ms:.4f} ms)",
                          severity="warning")
