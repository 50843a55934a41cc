#!/usr/bin/env python3
"""Runs every bundled reference program on a CUDA GPU at its default (GPU-sized) configuration.

For each task: output finite and of the task's dtype, median forward time over timed runs (CUDA events, after
warm-up), peak device memory, achieved FLOP/s and bytes/s from the task's formulas; and the small configuration run
on CPU and GPU from the same inputs, compared (max abs and relative error) to show the reference is device-agnostic.

usage: run_references_gpu.py TASKS_DIR [OUT_DIR]      (needs torch with CUDA; prints a table last)
"""
import json
import math
import os
import sys
import time
import tomllib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks"))
import check_references as cr  # noqa: E402  (loader, constants, formula evaluation)

import torch  # noqa: E402

WARMUP, RUNS = 3, 10


def to_device(x, device):
    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(e, device) for e in x)
    return x


def outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def constants(module, names):
    return {n: getattr(module, n) for n in names if isinstance(getattr(module, n, None), (int, float))}


def load(ref_path, task_id, overrides, tag):
    module = cr.load_fresh(ref_path, task_id, tag)
    for k, v in overrides.items():
        setattr(module, k, v)
    return module


def default_run(ref_path, task_id, meta, names):
    module = load(ref_path, task_id, {}, "gpu-default")
    torch.manual_seed(0)
    model = module.Model(*module.get_init_inputs()).cuda().eval()
    inputs = to_device(module.get_inputs(), "cuda")
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    with torch.no_grad():
        for i in range(WARMUP + RUNS):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            out = model(*inputs)
            end.record()
            torch.cuda.synchronize()
            if i >= WARMUP:
                times.append(start.elapsed_time(end))
    for t in outputs(out):
        if not torch.isfinite(t.float()).all():
            raise cr.CheckError("default config: non-finite output on the GPU")
    want = cr.FLOAT_DTYPES.get(meta.get("dtype"))
    if want is not None and outputs(out)[0].dtype != want:
        raise cr.CheckError(f"default config: output dtype {outputs(out)[0].dtype}, task says {want}")
    ms = sorted(times)[len(times) // 2]
    row = {"ms": ms, "peak_gib": torch.cuda.max_memory_allocated() / 2**30,
           "shape": str(tuple(outputs(out)[0].shape))}
    consts = constants(module, names)
    for key in ("flops", "bytes"):
        expr = meta.get("formulas", {}).get(key)
        if expr:
            row[key] = float(eval(expr, {"__builtins__": {}}, consts))
    if "flops" in row:
        row["tflops"] = row["flops"] / (ms * 1e-3) / 1e12
    if "bytes" in row:
        row["gbps"] = row["bytes"] / (ms * 1e-3) / 1e9
    del model, inputs, out
    torch.cuda.empty_cache()
    return row


def small_cross_check(ref_path, task_id, cfg):
    overrides = {k: v for k, v in cfg.items() if k != "name"}
    module = load(ref_path, task_id, overrides, "cross-" + cfg["name"])
    torch.manual_seed(0)
    model = module.Model(*module.get_init_inputs()).eval()
    inputs = module.get_inputs()
    with torch.no_grad():
        cpu = outputs(model(*inputs))
        gpu = outputs(model.cuda()(*to_device(inputs, "cuda")))
    worst_abs, worst_rel = 0.0, 0.0
    for a, b in zip(cpu, gpu):
        a, b = a.double(), b.double().cpu()
        diff = (a - b).abs()
        worst_abs = max(worst_abs, diff.max().item() if diff.numel() else 0.0)
        worst_rel = max(worst_rel, (diff.norm() / a.norm().clamp_min(1e-30)).item() if diff.numel() else 0.0)
    return worst_abs, worst_rel


def main(argv):
    if len(argv) < 2 or not torch.cuda.is_available():
        print(__doc__ if len(argv) < 2 else "no CUDA device", file=sys.stderr)
        return 2
    tasks_dir, out_dir = argv[1], (argv[2] if len(argv) > 2 else None)
    torch.backends.cuda.matmul.allow_tf32 = False  # the references' own numerics, not TF32's
    torch.backends.cudnn.allow_tf32 = False
    results, failed = [], 0
    for folder in sorted(os.listdir(tasks_dir)):
        task_dir = os.path.join(tasks_dir, folder)
        toml_path = os.path.join(task_dir, "task.toml")
        if not os.path.isfile(toml_path):
            continue
        with open(toml_path, "rb") as f:
            meta = tomllib.load(f)
        ref_path = os.path.join(task_dir, "reference.py")
        with open(ref_path) as f:
            names = cr.module_constants(f.read(), ref_path)
        row = {"id": folder, "dtype": meta.get("dtype")}
        t0 = time.perf_counter()
        try:
            row.update(default_run(ref_path, folder, meta, names))
            small = next((c for c in meta.get("configs", []) if c["name"].startswith("small")), None)
            if small is not None:
                row["small_abs"], row["small_rel"] = small_cross_check(ref_path, folder, small)
            row["ok"] = True
        except Exception as e:  # a failing task is a row, not the end of the run
            row["ok"], row["error"] = False, f"{type(e).__name__}: {e}"[:300]
            failed += 1
            torch.cuda.empty_cache()
        row["wall_s"] = time.perf_counter() - t0
        results.append(row)
        print(json.dumps(row), flush=True)

    env = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    if out_dir:
        with open(os.path.join(out_dir, "references-gpu.json"), "w") as f:
            json.dump({"environment": env, "results": results}, f, indent=1)
    print(f"\n{env['gpu']}, torch {env['torch']} (CUDA {env['cuda']}), {env['date_utc']} UTC; "
          f"median of {RUNS} runs after {WARMUP} warm-up, TF32 off")
    print(f"{'task':32} {'ms':>9} {'peak GiB':>8} {'TFLOP/s':>8} {'GB/s':>7} {'small rel err':>13}  status")
    for r in results:
        if not r["ok"]:
            print(f"{r['id']:32} {'':>9} {'':>8} {'':>8} {'':>7} {'':>13}  FAIL {r['error']}")
            continue
        fmt = lambda k, spec: format(r[k], spec) if k in r and math.isfinite(r[k]) else "-"  # noqa: E731
        print(f"{r['id']:32} {fmt('ms', '9.3f')} {fmt('peak_gib', '8.2f')} {fmt('tflops', '8.1f')} "
              f"{fmt('gbps', '7.0f')} {fmt('small_rel', '13.1e')}  ok")
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
