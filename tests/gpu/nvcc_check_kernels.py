#!/usr/bin/env python3
"""Compile the CUDA part of load_inline solutions with plain nvcc, without torch's CUDA headers.

usage: nvcc_check_kernels.py [--nvcc PATH] [--arch sm_90] [--jobs N] [--py TASKS_DIR] FILE_OR_DIR ...

For every solution .py (directories are searched recursively) the cuda_sources string of its load_inline call is
extracted (a module-level string constant, or a literal) and compiled with `nvcc -arch=ARCH -std=c++17 -O3 -c`.
The torch includes (<torch/...>, <ATen/...>, <c10/...>) are replaced, line for line, by one small stub header
(written to a temporary folder) that declares the slice of the ATen API the host wrappers use: Tensor's
is_cuda/is_contiguous/scalar_type/dim/size/numel/data_ptr<T>/options, torch::empty/empty_like/zeros,
TORCH_CHECK, at::cuda::getCurrentCUDAStream(), C10_CUDA_KERNEL_LAUNCH_CHECK. So kernels and host wrappers are both
compiled (the wrappers against the stub's signatures, which follow ATen's), and an nvcc line N maps to line
start + N - 1 of the .py file. Also checked: every name in `functions` is declared in cpp_sources and defined in
cuda_sources. ptxas spills and register counts are reported per kernel (-Xptxas -v).

A file whose cuda_sources contains `// ERROR-LINE` is expected to fail, and to fail on exactly that line.

With --py TASKS_DIR the Python side is checked as well, with the installed (CPU) torch and load_inline replaced
by a stub: the solution imports, and for every configuration of its task (default + named ones; the task is the
file's stem, or the `task` of a manifest.json entry next to it) ModelNew(*get_init_inputs()) builds, its
state_dict has the reference Model's keys and shapes, and, built after the same torch.manual_seed, holds the
same values (an initialisation that mirrors the reference's).

Exit status 0 when everything is as expected.
"""
import argparse
import ast
import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types

STUB_HEADER = r"""
// Minimal stand-in for the slice of the ATen / c10 API used by the host wrappers (nvcc_check_kernels.py).
#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <cstddef>
#include <vector>
#include <string>
#include <stdexcept>
#include <initializer_list>

namespace c10 {
enum class ScalarType { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16 };
struct IntArrayRef {
    std::vector<int64_t> v;
    IntArrayRef(std::initializer_list<int64_t> l) : v(l) {}
    IntArrayRef(const std::vector<int64_t>& x) : v(x) {}
    size_t size() const { return v.size(); }
    int64_t operator[](size_t i) const { return v[i]; }
};
struct Device { bool is_cuda() const; int64_t index() const; };
struct TensorOptions {
    TensorOptions dtype(ScalarType) const;
    TensorOptions device(Device) const;
};
}  // namespace c10

namespace at {
using c10::IntArrayRef;
using c10::ScalarType;
using c10::TensorOptions;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kDouble = ScalarType::Double;
class Tensor {
public:
    bool is_cuda() const;
    bool is_contiguous() const;
    ScalarType scalar_type() const;
    int64_t dim() const;
    int64_t size(int64_t d) const;
    int64_t stride(int64_t d) const;
    int64_t numel() const;
    IntArrayRef sizes() const;
    TensorOptions options() const;
    c10::Device device() const;
    template <typename T> T* data_ptr() const;
    Tensor contiguous() const;
    Tensor view(IntArrayRef shape) const;
    Tensor reshape(IntArrayRef shape) const;
};
Tensor empty(IntArrayRef shape, TensorOptions opts);
Tensor empty_like(const Tensor& t);
Tensor zeros(IntArrayRef shape, TensorOptions opts);
Tensor zeros_like(const Tensor& t);
namespace cuda {
struct CUDAStream {
    cudaStream_t stream() const;
    operator cudaStream_t() const;
};
CUDAStream getCurrentCUDAStream(int device = -1);
cudaDeviceProp* getCurrentDeviceProperties();
}  // namespace cuda
}  // namespace at

namespace torch {
using namespace at;
using at::Tensor;
}  // namespace torch

#define TORCH_CHECK(cond, ...) \
    do { \
        if (!(cond)) throw std::runtime_error("TORCH_CHECK failed: " #cond); \
    } while (0)
#define C10_CUDA_CHECK(expr) \
    do { \
        cudaError_t km_err_ = (expr); \
        if (km_err_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(km_err_)); \
    } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
"""

TORCH_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](torch|ATen|c10)/[^>"]*[>"]')


def find_solutions(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                out += [os.path.join(root, f) for f in files if f.endswith(".py")]
        else:
            out.append(p)
    return sorted(out)


def _const_str(node, assigns):
    """The string value of node (a literal, a module-level name bound to one, or a list of those)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, node.lineno
    if isinstance(node, ast.Name) and node.id in assigns:
        return _const_str(assigns[node.id], assigns)
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == 1:
        return _const_str(node.elts[0], assigns)
    return None, None


def extract(path):
    """{cuda, cuda_line, cpp, functions, name} of the file's load_inline call, or raise ValueError."""
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src, filename=path)
    assigns = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigns[node.targets[0].id] = node.value
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and ((isinstance(n.func, ast.Name) and n.func.id == "load_inline")
                  or (isinstance(n.func, ast.Attribute) and n.func.attr == "load_inline"))]
    if len(calls) != 1:
        raise ValueError(f"expected one load_inline call, found {len(calls)}")
    kw = {k.arg: k.value for k in calls[0].keywords}
    cuda, cuda_line = _const_str(kw.get("cuda_sources"), assigns) if "cuda_sources" in kw else (None, None)
    cpp, _ = _const_str(kw.get("cpp_sources"), assigns) if "cpp_sources" in kw else (None, None)
    if cuda is None:
        raise ValueError("cuda_sources is not a string constant")
    functions = []
    fnode = kw.get("functions")
    if isinstance(fnode, ast.Name):
        fnode = assigns.get(fnode.id)
    if isinstance(fnode, (ast.List, ast.Tuple)):
        functions = [e.value for e in fnode.elts if isinstance(e, ast.Constant)]
    elif isinstance(fnode, ast.Constant):
        functions = [fnode.value]
    name = kw["name"].value if isinstance(kw.get("name"), ast.Constant) else None
    return {"cuda": cuda, "cuda_line": cuda_line, "cpp": cpp or "", "functions": functions, "name": name,
            "source": src}


def stubbed(cuda):
    """cuda_sources with the torch includes replaced line for line (the first by the stub, the rest blank)."""
    lines, done = [], False
    for line in cuda.split("\n"):
        if TORCH_INCLUDE.match(line):
            lines.append("" if done else '#include "km_torch_stub.h"')
            done = True
        else:
            lines.append(line)
    if not done:
        lines[0] = '#include "km_torch_stub.h" ' + ("// " + lines[0] if lines[0] else "")
    return "\n".join(lines)


def check_file(path, nvcc, arch, stub_dir):
    res = {"file": path, "ok": False, "notes": [], "kernels": []}
    try:
        info = extract(path)
    except (ValueError, SyntaxError, KeyError) as e:
        res["notes"].append(f"extract: {e}")
        return res
    for fn in info["functions"]:
        if not re.search(r"\b%s\s*\(" % re.escape(fn), info["cpp"]):
            res["notes"].append(f"function {fn} not declared in cpp_sources")
        if not re.search(r"\b%s\s*\([^;{]*\)\s*\{" % re.escape(fn), info["cuda"]):
            res["notes"].append(f"function {fn} not defined in cuda_sources")
    expect_error = "ERROR-LINE" in info["cuda"]
    error_line = None
    if expect_error:
        for i, line in enumerate(info["cuda"].split("\n")):
            if "ERROR-LINE" in line:
                error_line = info["cuda_line"] + i
    with tempfile.TemporaryDirectory() as tmp:
        cu = os.path.join(tmp, "solution.cu")
        with open(cu, "w") as f:
            f.write(stubbed(info["cuda"]))
        cmd = [nvcc, f"-arch={arch}", "-std=c++17", "-O3", "-c", cu, "-o", os.path.join(tmp, "solution.o"),
               "-I", stub_dir, "-Xptxas", "-v", "--expt-relaxed-constexpr"]
        p = subprocess.run(cmd, capture_output=True, text=True)
    log = p.stdout + p.stderr
    # map "solution.cu(N)" to the .py line
    errors = []
    for m in re.finditer(r"solution\.cu\((\d+)\): (error|warning)[^\n]*", log):
        py_line = info["cuda_line"] + int(m.group(1)) - 1
        if m.group(2) == "error":
            errors.append(py_line)
        res["notes"].append(f"line {py_line}: {m.group(0).split(': ', 1)[1]}")
    # ptxas per-kernel resource usage
    current = None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = {"kernel": m.group(1), "regs": None, "spill": None, "smem": None}
            res["kernels"].append(current)
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            current["spill"] = int(m.group(1)) + int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["regs"] = int(m.group(1))
        m = re.search(r"(\d+) bytes smem", line)
        if m:
            current["smem"] = int(m.group(1))
    if expect_error:
        res["ok"] = p.returncode != 0 and errors == [error_line]
        res["notes"].append(f"expected a compile error on line {error_line}: nvcc rc={p.returncode}, "
                            f"errors on lines {errors}")
    else:
        res["ok"] = p.returncode == 0 and not any(n.startswith("function ") for n in res["notes"])
        if p.returncode != 0:
            res["notes"].append("nvcc failed:\n" + log[-3000:])
    return res


# ---------------------------------------------------------------- Python side (--py)

def _load_module(path, name, overrides=None):
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


def check_python(path, task, tasks_dir):
    import torch
    import torch.utils.cpp_extension as ce
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    notes = []
    calls = []

    def fake_load_inline(name, cpp_sources, cuda_sources=None, functions=None, **kw):
        calls.append({"name": name, "kw": sorted(kw)})
        return types.SimpleNamespace(**{f: (lambda *a, **k: None) for f in (functions or [])})

    real = ce.load_inline
    ce.load_inline = fake_load_inline
    try:
        sol = _load_module(path, "_km_sol_" + re.sub(r"\W", "_", os.path.basename(path)))
    finally:
        ce.load_inline = real
    if len(calls) != 1:
        notes.append(f"load_inline called {len(calls)} times")
    else:
        c = calls[0]
        if not re.fullmatch(r"km_[a-z0-9_]+", c["name"] or ""):
            notes.append(f"extension name {c['name']!r} is not km_<task>")
    if not hasattr(sol, "ModelNew"):
        return False, notes + ["no ModelNew"]
    task_dir = os.path.join(tasks_dir, task)
    with open(os.path.join(task_dir, "task.toml"), "rb") as f:
        meta = tomllib.load(f)
    configs = [{"name": "default"}] + meta.get("configs", [])
    ok = True
    for cfg in configs:
        over = {k: v for k, v in cfg.items() if k != "name"}
        ref = _load_module(os.path.join(task_dir, "reference.py"), "_km_ref_" + re.sub(r"\W", "_", task), over)
        init = ref.get_init_inputs()
        torch.manual_seed(7)
        model = ref.Model(*init)
        torch.manual_seed(7)
        new = sol.ModelNew(*init)
        a, b = model.state_dict(), new.state_dict()
        if list(a) != list(b) and sorted(a) != sorted(b):
            notes.append(f"{cfg['name']}: state_dict keys {sorted(b)} != reference {sorted(a)}")
            ok = False
            continue
        for k in a:
            if a[k].shape != b[k].shape:
                notes.append(f"{cfg['name']}: {k} shape {tuple(b[k].shape)} != {tuple(a[k].shape)}")
                ok = False
            elif not torch.equal(a[k], b[k]):
                notes.append(f"{cfg['name']}: {k} initialised differently (the state_dict copy still fixes it)")
        del model, new
    return ok, notes


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--py", metavar="TASKS_DIR", help="also check the Python side against the tasks")
    args = ap.parse_args(argv[1:])
    files = find_solutions(args.paths)
    if not files:
        print("no solution files", file=sys.stderr)
        return 2
    failed = 0
    with tempfile.TemporaryDirectory() as stub_dir:
        with open(os.path.join(stub_dir, "km_torch_stub.h"), "w") as f:
            f.write(STUB_HEADER)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
            results = list(ex.map(lambda p: check_file(p, args.nvcc, args.arch, stub_dir), files))
    for r in results:
        spills = [k for k in r["kernels"] if k["spill"]]
        regs = max([k["regs"] or 0 for k in r["kernels"]] or [0])
        print(f"{'ok  ' if r['ok'] else 'FAIL'} {os.path.relpath(r['file'])}  kernels={len(r['kernels'])} "
              f"max_regs={regs} spills={len(spills)}")
        for n in r["notes"]:
            print("      " + n.replace("\n", "\n      "))
        for k in spills:
            print(f"      spill in {k['kernel']}: {k['spill']} bytes")
        failed += not r["ok"]
    if args.py:
        manifest = {}
        for f in files:
            mpath = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(f))), "manifest.json")
            if os.path.isfile(mpath) and mpath not in manifest:
                with open(mpath) as fh:
                    for e in json.load(fh):
                        manifest[os.path.normpath(os.path.join(os.path.dirname(mpath), e["file"]))] = e["task"]
        print("\nPython side (CPU torch, load_inline stubbed):")
        for f in files:
            info_task = manifest.get(os.path.normpath(os.path.abspath(f)),
                                     os.path.splitext(os.path.basename(f))[0])
            if not os.path.isdir(os.path.join(args.py, info_task)):
                print(f"skip {os.path.relpath(f)} (no task {info_task})")
                continue
            try:
                ok, notes = check_python(f, info_task, args.py)
            except Exception as e:  # a broken solution is a failed line, not the end of the check
                ok, notes = False, [f"{type(e).__name__}: {e}"]
            print(f"{'ok  ' if ok else 'FAIL'} {os.path.relpath(f)} [{info_task}]")
            for n in notes:
                print("      " + n)
            failed += not ok
    print(f"\n{failed} failed ({len(files)} files{', nvcc and Python checks' if args.py else ''})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
