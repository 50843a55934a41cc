"""`python3 -m kmosaic_harness pch --cache DIR [--cuda]`: precompiles torch/extension.h for the flag sets that
load_inline gives the generated main.cpp (plain and -O3; with CUDA's include folder when --cuda), into
<cache>/pch/<key>/. Trusted: it compiles torch's own headers and nothing of a solution's, so a precompiled header
is a function of its key alone. Build children read these folders and never write them (fastbuild.py)."""
import argparse
import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

from . import fastbuild

VARIANTS = [[], ["-O3"]]


def pch_root(cache_root):
    return os.path.join(cache_root, "pch")


def marker_name(tools, with_cuda):
    """The file that says every variant was built for this toolchain, so a worker need not start the command."""
    blob = json.dumps({"tools": tools, "cuda": bool(with_cuda), "variants": VARIANTS}, sort_keys=True)
    return ".built-" + hashlib.sha256(blob.encode()).hexdigest()[:16]


def _one(root, with_cuda, cflags):
    """Lets torch write the build file of a one-function probe with these flags, then precompiles for its flags."""
    import torch.utils.cpp_extension as ce

    def precompile_only(build_directory, verbose, error_prefix):
        v = fastbuild.ninja_vars(build_directory)
        fastbuild.build_pch(root, v.get("cxx", "c++"), v.get("cflags", ""), v.get("post_cflags", ""))
        raise _Done()

    ce._run_ninja_build = precompile_only
    with tempfile.TemporaryDirectory(prefix="kmosaic-pch-") as d:
        try:
            ce.load_inline(name="kmosaic_pch_probe", cpp_sources="int kmosaic_pch_probe() { return 1; }",
                           functions=["kmosaic_pch_probe"], extra_cflags=cflags, with_cuda=with_cuda,
                           build_directory=d, verbose=False)
        except _Done:
            pass


class _Done(Exception):
    pass


def ensure(cache_root, with_cuda, quiet=True):
    """Builds every missing variant, each in its own process, up to a quarter of the cores at once (builds of
    solutions need the rest). Returns the seconds it took and how many failed."""
    t0 = time.monotonic()
    pending = [(cflags, cuda) for cflags in VARIANTS for cuda in ([True, False] if with_cuda else [False])]
    width = max(1, (os.cpu_count() or 2) // 4)
    running, failed = [], 0
    while pending or running:
        while pending and len(running) < width:
            cflags, cuda = pending.pop(0)
            args = [sys.executable, "-m", "kmosaic_harness", "pch", "--cache", cache_root, "--one",
                    "--flags=" + " ".join(cflags)] + (["--cuda"] if cuda else [])
            running.append(subprocess.Popen(args, stdout=subprocess.DEVNULL if quiet else None,
                                            stderr=subprocess.DEVNULL if quiet else None))
        running[0].wait()
        failed += running.pop(0).returncode != 0
    return time.monotonic() - t0, failed


def main(argv):
    ap = argparse.ArgumentParser(prog="kmosaic_harness pch")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--cuda", action="store_true")
    ap.add_argument("--marker", help="file to create in the pch folder once every variant is built")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--flags", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    fastbuild.lower_priority()
    root = pch_root(args.cache)
    os.makedirs(root, exist_ok=True)
    if args.one:
        _one(root, args.cuda, [f for f in args.flags.split() if f])
        return 0
    lock = open(os.path.join(root, ".lock"), "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"precompiled headers in {root}: another build is running")
        return 0
    seconds, failed = ensure(args.cache, args.cuda, quiet=False)
    if args.marker and not failed:
        open(os.path.join(root, os.path.basename(args.marker)), "w").close()
    print(f"precompiled headers in {root}: {seconds:.1f} s, {failed} failed")
    return 1 if failed else 0
