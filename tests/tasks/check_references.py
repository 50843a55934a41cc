#!/usr/bin/python3
"""Smoke-check the bundled task folders.

Usage: /usr/bin/python3 tests/tasks/check_references.py TASKS_DIR [TASK_ID ...]

For every task folder (all folders under TASKS_DIR, or only the named ones) this
checks the task.toml metadata against docs/task-format.md, then runs the reference
program for every configuration whose name starts with "small": a fresh import of
reference.py, the configuration's values set as module globals, torch.manual_seed(0),
Model(*get_init_inputs()).eval(), forward(*get_inputs()) under torch.no_grad().
The output must be a tensor (or a tuple/list of tensors) with non-zero numel, only
finite values and, for float task dtypes, that dtype. [formulas] expressions must evaluate
to positive numbers over the module constants merged with each configuration, and a
"small" configuration must stay within SMALL_MAX_FLOPS and SMALL_MAX_BYTES by them (its
size is checked by the task's own formulas, not by a clock). A configuration that has not
returned after HANG_S seconds is reported as hung. Each run's time is printed, not judged.

Prints one line per task, then "N passed, M failed". Exit status: 0 when all passed,
1 when any failed, 2 on bad usage. Only the standard library and torch are used.
"""
import ast
import importlib.util
import math
import os
import re
import signal
import sys
import time
import tomllib

sys.dont_write_bytecode = True  # keep the task folders free of __pycache__

import torch

HANG_S = 120.0  # a reference stuck in a loop, not a slow one: sizes are judged by SMALL_MAX_*
SMALL_MAX_FLOPS = 1e9  # the largest bundled small configuration needs 4.2e6
SMALL_MAX_BYTES = 256 * 2**20  # ... and 0.33 MB

ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
TOP_KEYS = {"id", "title", "level", "categories", "tags", "dtype", "shown", "status",
            "forbidden_ops", "source", "tolerance", "formulas", "configs"}
REQUIRED_KEYS = {"id", "title", "level", "categories", "dtype", "shown"}
CATEGORIES = {"elementwise", "activation", "reduction", "softmax", "normalization", "gemm",
              "batched-gemm", "convolution", "pooling", "scan", "attention", "fused", "model",
              "loss", "indexing", "other"}
DTYPES = {"float32", "float16", "bfloat16", "float64", "int32", "int64", "mixed"}
FLOAT_DTYPES = {"float32": torch.float32, "float16": torch.float16,
                "bfloat16": torch.bfloat16, "float64": torch.float64}
STATUSES = {"draft", "in_review", "accepted", "rejected", "needs_changes"}
PRESENTATION_FILES = {"description": "description.md", "reference": "reference.py", "spec": "spec.md"}
SOURCE_KINDS = {"bundled", "kernelbench", "file"}


class CheckError(Exception):
    pass


class Hung(Exception):
    pass


def _on_alarm(signum, frame):
    raise Hung()


def module_constants(source, path):
    """Names bound by plain top-level assignments in reference.py."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise CheckError(f"reference.py does not parse: {e}")
    names = set()
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Name):
                    names.add(sub.id)
    return names


_counter = 0


def load_fresh(path, task_id, tag):
    global _counter
    _counter += 1
    name = "_kmosaic_ref_%d_%s_%s" % (_counter, re.sub(r"\W", "_", task_id), re.sub(r"\W", "_", tag))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def check_metadata(task_dir, folder, meta):
    unknown = set(meta) - TOP_KEYS
    if unknown:
        raise CheckError("unknown task.toml keys: " + ", ".join(sorted(unknown)))
    missing = REQUIRED_KEYS - set(meta)
    if missing:
        raise CheckError("missing task.toml keys: " + ", ".join(sorted(missing)))
    tid = meta["id"]
    if tid != folder:
        raise CheckError(f"id {tid!r} does not equal the folder name {folder!r}")
    if not isinstance(tid, str) or not ID_RE.match(tid) or len(tid) > 80:
        raise CheckError(f"id {tid!r} is not a valid task id")
    if meta["level"] not in (1, 2, 3, 4):
        raise CheckError(f"level {meta['level']!r} not in 1..4")
    cats = meta["categories"]
    if not isinstance(cats, list) or not cats or any(c not in CATEGORIES for c in cats):
        raise CheckError(f"categories {cats!r} not a non-empty list from the vocabulary")
    if meta["dtype"] not in DTYPES:
        raise CheckError(f"dtype {meta['dtype']!r} unknown")
    if "status" in meta and meta["status"] not in STATUSES:
        raise CheckError(f"status {meta['status']!r} unknown")
    shown = meta["shown"]
    if not isinstance(shown, list) or not shown:
        raise CheckError("shown must be a non-empty list")
    for p in shown:
        if p not in PRESENTATION_FILES:
            raise CheckError(f"shown lists unknown presentation {p!r}")
        if not os.path.isfile(os.path.join(task_dir, PRESENTATION_FILES[p])):
            raise CheckError(f"shown presentation {p!r} has no {PRESENTATION_FILES[p]}")
    if len(set(shown)) != len(shown):
        raise CheckError("shown lists a presentation twice")
    src = meta.get("source")
    if src is not None and (not isinstance(src, dict) or src.get("kind") not in SOURCE_KINDS):
        raise CheckError(f"[source] kind must be one of {sorted(SOURCE_KINDS)}")
    tol = meta.get("tolerance")
    if tol is not None:
        for k, v in tol.items():
            if k not in ("atol", "rtol") or isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise CheckError(f"[tolerance] {k} = {v!r} is not a non-negative atol/rtol")
    configs = meta.get("configs", [])
    if not isinstance(configs, list):
        raise CheckError("configs must be an array of tables")
    names = set()
    for cfg in configs:
        name = cfg.get("name")
        if not isinstance(name, str) or not name:
            raise CheckError("a [[configs]] entry has no name")
        if name in names:
            raise CheckError(f"config name {name!r} used twice")
        names.add(name)
    return configs


def check_output(out, want_dtype):
    tensors = list(out) if isinstance(out, (tuple, list)) else [out]
    if not tensors:
        raise CheckError("forward returned an empty tuple/list")
    shapes = []
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            raise CheckError(f"forward returned a {type(t).__name__}, not a torch.Tensor")
        if t.numel() == 0:
            raise CheckError(f"output of shape {tuple(t.shape)} is empty")
        if want_dtype is not None and t.dtype != want_dtype:
            raise CheckError(f"output dtype {t.dtype} does not match task dtype {want_dtype}")
        if not bool(torch.isfinite(t).all()):
            raise CheckError("output has non-finite values")
        shapes.append(str(tuple(t.shape)))
    return shapes[0] if not isinstance(out, (tuple, list)) else "[" + ", ".join(shapes) + "]"


def eval_formulas(formulas, namespace, label):
    values = {}
    for key, expr in formulas.items():
        if not isinstance(expr, str):
            raise CheckError(f"formula {key} is not a string")
        try:
            value = eval(expr, {"__builtins__": {}}, dict(namespace))
        except Exception as e:
            raise CheckError(f"formula {key} = {expr!r} does not evaluate ({label}): {e}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise CheckError(f"formula {key} = {expr!r} gives {value!r} ({label}), not a positive number")
        values[key] = value
    return values


def run_config(ref_path, task_id, cfg, want_dtype):
    overrides = {k: v for k, v in cfg.items() if k != "name"}
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    try:
        module = load_fresh(ref_path, task_id, cfg["name"])
        for k, v in overrides.items():
            setattr(module, k, v)
        for attr in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(module, attr):
                raise CheckError(f"reference.py defines no {attr}")
        torch.manual_seed(0)
        init = module.get_init_inputs()
        model = module.Model(*init)
        model.eval()
        inputs = module.get_inputs()
        for x in inputs:
            if isinstance(x, torch.Tensor) and x.device.type != "cpu":
                raise CheckError("get_inputs() returned a tensor that is not on the CPU")
        with torch.no_grad():
            out = model(*inputs)
        shape = check_output(out, want_dtype)
    except Hung:
        raise CheckError(f"config {cfg['name']!r} did not return within {HANG_S:.0f} s: hung")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - start, shape


def check_task(tasks_dir, folder):
    task_dir = os.path.join(tasks_dir, folder)
    toml_path = os.path.join(task_dir, "task.toml")
    if not os.path.isdir(task_dir):
        raise CheckError("no such task folder")
    if not os.path.isfile(toml_path):
        raise CheckError("no task.toml")
    try:
        with open(toml_path, "rb") as f:
            meta = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise CheckError(f"task.toml does not parse: {e}")
    configs = check_metadata(task_dir, folder, meta)

    ref_path = os.path.join(task_dir, "reference.py")
    if not os.path.isfile(ref_path):
        raise CheckError("no reference.py to run")
    with open(ref_path, encoding="utf-8") as f:
        source = f.read()
    constants = module_constants(source, ref_path)
    for cfg in configs:
        for key in cfg:
            if key != "name" and key not in constants:
                raise CheckError(f"config {cfg['name']!r} key {key!r} is not a module-level constant of reference.py")

    small = [c for c in configs if c["name"].startswith("small")]
    if not small:
        raise CheckError("no config whose name starts with 'small'")

    formulas = meta.get("formulas")
    if formulas:
        module = load_fresh(ref_path, folder, "defaults")
        base = {k: getattr(module, k) for k in constants
                if hasattr(module, k) and isinstance(getattr(module, k), (int, float, bool, str))}
        eval_formulas(formulas, base, "defaults")
        for cfg in configs:
            ns = dict(base)
            ns.update({k: v for k, v in cfg.items() if k != "name"})
            values = eval_formulas(formulas, ns, "config " + cfg["name"])
            if cfg["name"].startswith("small"):
                for key, limit in (("flops", SMALL_MAX_FLOPS), ("bytes", SMALL_MAX_BYTES)):
                    if values.get(key, 0) > limit:
                        raise CheckError(f"config {cfg['name']!r} is not small: {key} = {values[key]:.3g}, "
                                         f"over {limit:.3g}")

    want_dtype = FLOAT_DTYPES.get(meta["dtype"])
    total = 0.0
    results = []
    for cfg in small:
        elapsed, shape = run_config(ref_path, folder, cfg, want_dtype)
        total += elapsed
        results.append((cfg["name"], shape))
    return total, results


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    tasks_dir = argv[1]
    if not os.path.isdir(tasks_dir):
        print(f"check_references: {tasks_dir}: not a directory", file=sys.stderr)
        return 2
    if len(argv) > 2:
        folders = argv[2:]
    else:
        folders = sorted(d for d in os.listdir(tasks_dir)
                         if os.path.isdir(os.path.join(tasks_dir, d)) and not d.startswith((".", "_")))
    signal.signal(signal.SIGALRM, _on_alarm)
    passed = failed = 0
    for folder in folders:
        try:
            total, results = check_task(tasks_dir, folder)
        except CheckError as e:
            failed += 1
            print(f"FAIL {folder}: {e}", flush=True)
            continue
        except Exception as e:
            failed += 1
            reason = f"{type(e).__name__}: {e}".splitlines()[0]
            print(f"FAIL {folder}: {reason}", flush=True)
            continue
        passed += 1
        names = ",".join(n for n, _ in results)
        shapes = "; ".join(s for _, s in results)
        print(f"ok   {folder}  {names}  {total:.3f}s  {shapes}", flush=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
