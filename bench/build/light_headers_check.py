#!/usr/bin/env python3
"""Does the light-header rewrite (fastbuild.py) compile each solution's CUDA source, and how much faster?

For every solution file given: capture its load_inline calls (the harness's capture, in-process), write each call's
CUDA source as load_inline would (torch's three includes first), and compile it with nvcc -c twice: as written and
after fastbuild.lighten(). Prints one row per source: ok/failed and seconds for both. Compile only: no GPU needed.
Usage: light_headers_check.py [--arch 90] FILE...   (python with torch; nvcc from CUDA_HOME or PATH)"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "harness"))
import torch.utils.cpp_extension as ce  # noqa: E402

from kmosaic_harness import extcache, fastbuild  # noqa: E402


def capture(path):
    work = extcache.capture_body(open(path).read(), path)
    return work(None, lambda p: None)["calls"]


def nvcc(cu, arch):
    flags = ["-std=c++17", "--expt-relaxed-constexpr", f"-gencode=arch=compute_{arch},code=sm_{arch}",
             "-DTORCH_EXTENSION_NAME=probe", "-DTORCH_API_INCLUDE_EXTENSION_H", "-Xcompiler", "-fPIC",
             "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
             "-D__CUDA_NO_HALF2_OPERATORS__"]
    for d in ce.include_paths():
        flags += ["-isystem", d]
    import sysconfig
    flags += ["-isystem", sysconfig.get_paths()["include"]]
    exe = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    t = time.time()
    r = subprocess.run([exe] + flags + ["-c", cu, "-o", cu + ".o"], capture_output=True, text=True)
    return r.returncode == 0, time.time() - t, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="90")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    print("| solution | call | full | light | light failure |")
    print("|---|---|---|---|---|")
    for path in a.files:
        for call in capture(path):
            cuda = call.get("cuda_sources")
            if not cuda:
                continue
            if isinstance(cuda, str):
                cuda = [cuda]
            text = "\n".join(["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"] + list(cuda))
            d = tempfile.mkdtemp()
            cu = os.path.join(d, "cuda.cu")
            open(cu, "w").write(text)
            ok_full, s_full, _ = nvcc(cu, a.arch)
            fastbuild.lighten(cu, ce.include_paths())
            ok_light, s_light, err = nvcc(cu, a.arch)
            first = next((l for l in err.splitlines() if "error" in l), "")[:120]
            print(f"| {os.path.basename(path)} | {call.get('name')} | {'ok' if ok_full else 'FAILED'} {s_full:.1f} s | "
                  f"{'ok' if ok_light else 'FAILED'} {s_light:.1f} s | {first} |", flush=True)


if __name__ == "__main__":
    main()
