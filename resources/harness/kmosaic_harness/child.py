"""What every forked child does around its work: redirect its output, isolate itself, report, never return."""
import json
import os
import sys
import time
import traceback

from . import gpulock, sandbox
from .programs import ProgramError

WAIT_MARKER = "gpu-wait"  # exists while the child waits for the GPU lock (gpulock), read by spawn.Child.wait


class Phase:
    """Writes the current phase to a file the worker reads after a timeout or a crash."""

    def __init__(self, scratch):
        self._path = os.path.join(scratch, "phase")
        self._marks = [("start", time.monotonic())]

    def __call__(self, name):
        with open(self._path, "w") as f:
            f.write(name)
        self._marks.append((name, time.monotonic()))

    def seconds(self):
        """[[phase, seconds spent in it], ...] up to now: where a child's wall time went."""
        ends = [t for _, t in self._marks[1:]] + [time.monotonic()]
        return [[name, round(end - t, 4)] for (name, t), end in zip(self._marks, ends)]


def run(scratch, writable, limits, use_as_limit, body, linger=None, join_pid=None):
    """In the child after fork: never returns. `body(report, phase)` returns the result dict. `linger()`, when
    given, is called after the result is written, before the process exits (spawn.start_child(linger=True))."""
    code = 0
    phase = Phase(scratch)
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG SIGKILL: a dead worker takes its children along
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans of what it starts stay its own
        log = os.open(os.path.join(scratch, "log.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        sys.stdout = os.fdopen(1, "w", buffering=1)
        sys.stderr = sys.stdout
        os.environ.update({
            "TMPDIR": scratch, "HOME": scratch, "CUDA_CACHE_PATH": os.path.join(scratch, ".nv"),
            "XDG_CACHE_HOME": os.path.join(scratch, ".cache"), "PYTHONDONTWRITEBYTECODE": "1",
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(scratch, ".inductor"),
            "TRITON_CACHE_DIR": os.path.join(scratch, ".triton"),
        })
        import tempfile
        tempfile.tempdir = scratch  # the worker resolved it before the fork
        gpulock.open_for_this_process(os.path.join(scratch, WAIT_MARKER))  # before the sandbox hides the lock folder
        report = sandbox.enter(scratch, writable, limits, use_as_limit, join_pid)
        result = body(report, phase)
        result["isolation"] = report
    except sandbox.SandboxError as e:
        result = {"error": {"kind": "sandbox", "message": str(e)[:4000]}}
    except ProgramError as e:
        result = {"error": {"kind": e.kind, "message": str(e), "line": e.line,
                            "traceback": e.traceback or traceback.format_exc(limit=-8)}}
    except MemoryError:
        result = {"error": {"kind": "memory", "message": "the process ran out of memory (limit reached)",
                            "traceback": traceback.format_exc(limit=-8)}}
    except BaseException as e:  # noqa: BLE001 - everything a program raises is a verdict, not a worker crash
        result = {"error": {"kind": "exception", "message": f"{type(e).__name__}: {e}"[:4000],
                            "traceback": traceback.format_exc(limit=-12)[-8000:]}}
    result["phases"] = phase.seconds()
    if gpulock.waited_s:
        result["gpu_wait_s"] = round(gpulock.waited_s, 4)
    try:
        tmp = os.path.join(scratch, "result.json.tmp")
        with open(tmp, "w") as f:
            json.dump(result, f, default=str)
        os.replace(tmp, os.path.join(scratch, "result.json"))
    except BaseException:  # noqa: BLE001
        code = 3
    try:
        sys.stdout.flush()
        if linger is not None and code == 0:
            linger()
    except BaseException:  # noqa: BLE001
        pass
    os._exit(code)
