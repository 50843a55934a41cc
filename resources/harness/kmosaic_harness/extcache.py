"""The content-addressed store of built extensions: `<cache>/ext/<key>/`, keyed by what goes into a build.

A solution's `load_inline` calls are captured first (the solution imported in a sandboxed child with load_inline
replaced by a recorder), then each call is built by a child that runs only torch's build of those arguments (no
solution code, no import of the result) into a fresh folder, which the worker publishes with one rename. So:
- the key is the build's inputs: the call's sources, functions and flags, torch, CUDA, nvcc, compiler and GPU
  architecture, never the Python around it (a step that changes only Python glue reuses its kernel);
- an entry is the output of its inputs alone: a solution cannot place a library under another solution's key;
- concurrent builders of one key wait on a lock instead of building twice, and no reader sees a half-written entry.
The measuring child loads from the store, read-only, and builds in its own folder only when a call was not seen
(load_inline inside forward, say)."""
import fcntl
import hashlib
import inspect
import json
import os
import shutil
import subprocess
import time

STORE_VERSION = 1
# Arguments that do not change what is built.
_IGNORED = {"verbose", "build_directory", "keep_intermediates"}


def toolchain(env):
    """The facts of this machine that a build depends on (from environment.collect(), plus the compiler)."""
    cxx = os.environ.get("CXX", "c++")
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=20).stdout
        cxx_version = version.splitlines()[0] if version else ""
    except (OSError, subprocess.SubprocessError):
        cxx_version = ""
    return {"store": STORE_VERSION, "torch": env.get("torch", ""), "torch_cuda": env.get("torch_cuda", ""),
            "nvcc": env.get("nvcc", ""), "python": env.get("python", ""), "cxx": cxx_version,
            "arch": os.environ.get("TORCH_CUDA_ARCH_LIST") or env.get("compute_cap", "")}


def normalise_call(original, args, kwargs):
    """load_inline's arguments as plain JSON, by name (positional ones bound to the real signature)."""
    bound = inspect.signature(original).bind(*args, **kwargs)
    bound.apply_defaults()
    call = {}
    for name, value in bound.arguments.items():
        if name in _IGNORED:
            continue
        if isinstance(value, (list, tuple)):
            value = [str(v) for v in value]
        elif isinstance(value, dict):
            value = {str(k): str(v) for k, v in value.items()}
        elif value is not None and not isinstance(value, (str, bool, int, float)):
            value = str(value)
        call[name] = value
    return call


def key(call, tools):
    blob = json.dumps({"call": call, "toolchain": tools}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:40]


def entry_dir(root, k):
    return os.path.join(root, "ext", k)


def library(entry, name):
    """The built library in an entry, or None (an entry holds exactly one extension)."""
    path = os.path.join(entry, f"{name}.so")
    return path if os.path.isfile(path) else None


class Lock:
    """An exclusive lock on one key, across processes (flock on a file under <cache>/locks)."""

    def __init__(self, root, k):
        os.makedirs(os.path.join(root, "locks"), exist_ok=True)
        self.path = os.path.join(root, "locks", k)

    def __enter__(self):
        self.f = open(self.path, "a")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def new_build_dir(root, k):
    tmp = os.path.join(root, "tmp", f"{k}-{os.getpid()}-{time.monotonic_ns()}")
    os.makedirs(tmp)
    return tmp


def publish(root, k, built):
    """Moves a finished build folder into place with one rename; an entry already there wins."""
    os.makedirs(os.path.join(root, "ext"), exist_ok=True)
    target = entry_dir(root, k)
    try:
        os.rename(built, target)
    except OSError:
        shutil.rmtree(built, ignore_errors=True)
    return target


# -- in the children -------------------------------------------------------------------------------------------
class _Recorded:
    """What a captured load_inline returns: any use of it outside the capture is an error that says why."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        def unusable(*_a, **_k):
            raise RuntimeError(f"extension '{self._name}' is only being captured here, not built")
        return unusable


def capture_body(source, path):
    """The capture child's work: import the solution with load_inline recording its calls."""
    def work(report, phase):
        import torch.utils.cpp_extension as ce
        from . import programs
        phase("capture")
        original = ce.load_inline
        calls = []

        def recorder(*args, **kwargs):
            call = normalise_call(original, args, kwargs)
            calls.append(call)
            return _Recorded(call.get("name", "?"))

        ce.load_inline = recorder
        note = ""
        try:
            programs.load_module("kmosaic_capture", source, path)
        except BaseException as e:  # noqa: BLE001 - the measuring child reports the solution's own errors
            note = f"{type(e).__name__}: {e}"[:300]
        return {"calls": calls, "note": note}
    return work


def build_body(call, build_dir, pch_root):
    """The build child's work: torch's build of one captured call into build_dir, nothing imported."""
    def work(report, phase):
        import torch.utils.cpp_extension as ce
        from . import fastbuild
        phase("build")
        fastbuild.install(pch_root)
        ce._import_module_from_library = lambda *a, **k: None  # build only: the library is not loaded here
        os.environ["MAX_JOBS"] = str(os.cpu_count() or 2)
        t0 = time.perf_counter()
        try:
            ce.load_inline(build_directory=build_dir, verbose=False, **call)
        except Exception as e:  # noqa: BLE001
            return {"ok": False, "seconds": time.perf_counter() - t0, "log": str(e)[-60000:],
                    "generated": _generated(build_dir), "fast": fastbuild.report(build_dir)}
        return {"ok": True, "seconds": time.perf_counter() - t0, "fast": fastbuild.report(build_dir)}
    return work


def _generated(build_dir, limit=400_000):
    out, total = {}, 0
    for name in ("main.cpp", "cuda.cu"):
        path = os.path.join(build_dir, name)
        try:
            with open(path, errors="replace") as f:
                text = f.read(limit - total)
        except OSError:
            continue
        out[name] = text
        total += len(text)
    return out


def install_loader(root, tools, used):
    """In the measuring child: load_inline serves calls from the store; unseen calls build as torch would."""
    import torch.utils.cpp_extension as ce
    original = ce.load_inline

    def cached(*args, **kwargs):
        call = normalise_call(original, args, kwargs)
        k = key(call, tools)
        name = call.get("name", "")
        entry = entry_dir(root, k)
        if library(entry, name):
            used.append({"key": k, "cached": True})
            return ce._import_module_from_library(name, entry, call.get("is_python_module", True))
        used.append({"key": k, "cached": False})
        return original(*args, **kwargs)

    ce.load_inline = cached
