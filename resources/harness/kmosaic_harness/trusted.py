"""The harness's own references to every function it relies on, taken before any solution code is imported, and
the identity check that tells whether the solution replaced any of them."""
import builtins
import os
import threading
import time

import torch

_WATCHED = [
    ("torch.allclose", lambda: torch.allclose),
    ("torch.equal", lambda: torch.equal),
    ("torch.isfinite", lambda: torch.isfinite),
    ("torch.manual_seed", lambda: torch.manual_seed),
    ("torch.randn", lambda: torch.randn),
    ("torch.sum", lambda: torch.sum),
    ("torch.Tensor.clone", lambda: torch.Tensor.clone),
    ("torch.Tensor.to", lambda: torch.Tensor.to),
    ("torch.Tensor.cpu", lambda: torch.Tensor.cpu),
    ("torch.Tensor.__eq__", lambda: torch.Tensor.__eq__),
    ("torch.Tensor.sub", lambda: torch.Tensor.sub),
    ("torch.nn.Module.__call__", lambda: torch.nn.Module.__call__),
    ("torch.nn.Module.load_state_dict", lambda: torch.nn.Module.load_state_dict),
    ("torch.cuda.synchronize", lambda: torch.cuda.synchronize),
    ("torch.cuda.Event", lambda: torch.cuda.Event),
    ("torch.cuda.Event.record", lambda: torch.cuda.Event.record),
    ("torch.cuda.Event.elapsed_time", lambda: torch.cuda.Event.elapsed_time),
    ("torch.cuda.current_stream", lambda: torch.cuda.current_stream),
    ("torch.cuda._sleep", lambda: torch.cuda._sleep),
    ("time.perf_counter", lambda: time.perf_counter),
    ("time.time", lambda: time.time),
    ("threading.active_count", lambda: threading.active_count),
    ("os.listdir", lambda: os.listdir),
    ("builtins.open", lambda: builtins.open),
    ("builtins.isinstance", lambda: builtins.isinstance),
    ("builtins.type", lambda: builtins.type),
]


def settle_lazy_patches():
    """torch rebinds some of its own functions when a lazy module is first imported (torch._dynamo wraps
    torch.manual_seed, for one; the profiler imports it). Import them before the snapshot so that only the solution
    can change an identity afterwards."""
    for name in ("torch._dynamo", "torch.profiler"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - absent in older torch: nothing to settle
            pass


_ATTEMPTS = []  # names of Trusted fields the solution tried to set or delete (replaced() reports them)


def _identity(obj):
    """What must not change about a watched function: the object, and for Python code its code object too (a
    `fn.__code__ = ...` swap keeps the function's id)."""
    code = getattr(obj, "__code__", None)
    return (id(obj), id(code)) if code is not None else (id(obj), None)


class Trusted:
    """Snapshot of the watched functions; use its attributes, never the module globals, once a solution ran.

    Frozen: no __dict__ (vars() fails), and setting or deleting a field raises and is recorded, so the route of
    issue 17 (frames from a traceback, f_locals, vars(T)['perf_counter'] = a slow clock) neither works nor goes
    unseen. Code in the solution's process can still reach past this (slot descriptors, ctypes): the correctness
    verdict never rests on this process, and its timing is cross-checked from outside (docs/verifier.md)."""

    __slots__ = ("_ids", "perf_counter", "synchronize", "Event", "sleep", "active_count", "listdir", "isfinite",
                 "read_all", "tensor_type", "_os_open", "_os_read", "_os_close", "_frozen")

    def __init__(self):
        settle_lazy_patches()
        ids = {}
        for name, get in _WATCHED:
            try:
                ids[name] = _identity(get())
            except Exception:  # noqa: BLE001 - a missing attribute is simply not watched
                pass
        put = object.__setattr__
        put(self, "_ids", ids)
        put(self, "perf_counter", time.perf_counter)
        put(self, "synchronize", torch.cuda.synchronize)
        put(self, "Event", torch.cuda.Event)
        put(self, "sleep", getattr(torch.cuda, "_sleep", None) or (lambda cycles: None))
        put(self, "active_count", threading.active_count)
        put(self, "listdir", os.listdir)
        put(self, "isfinite", torch.isfinite)
        put(self, "read_all", torch.sum)  # the L2 flush (timing.run)
        put(self, "tensor_type", torch.Tensor)
        put(self, "_os_open", os.open)
        put(self, "_os_read", os.read)
        put(self, "_os_close", os.close)
        put(self, "_frozen", True)

    def __setattr__(self, name, value):
        _ATTEMPTS.append(name)
        raise AttributeError(f"the harness's trusted references are read-only ({name})")

    def __delattr__(self, name):
        _ATTEMPTS.append(name)
        raise AttributeError(f"the harness's trusted references are read-only ({name})")

    def replaced(self):
        """Names of watched functions that are no longer the objects (or the code) they were, and of the fields of
        this snapshot the solution tried to change."""
        out = []
        for name, get in _WATCHED:
            if name not in self._ids:
                continue
            try:
                now = _identity(get())
            except Exception:  # noqa: BLE001
                out.append(name)
                continue
            if now != self._ids[name]:
                out.append(name)
        out += [f"the harness's snapshot ({n})" for n in dict.fromkeys(_ATTEMPTS)]
        return out

    def os_threads(self):
        return len(self.listdir("/proc/self/task"))

    def processes(self):
        """Processes this one started that still exist (running or unreaped), its orphans included: the child is
        its PID namespace's first process, or a subreaper without a sandbox (child.run), so a double fork or a
        setsid cannot hide one. Counted from /proc, whatever name started them (os.fork, subprocess, ctypes)."""
        n = 0
        for tid in self.listdir("/proc/self/task"):
            try:
                fd = self._os_open(f"/proc/self/task/{tid}/children", 0)
            except OSError:
                continue
            try:
                n += len(self._os_read(fd, 1 << 16).split())
            finally:
                self._os_close(fd)
        return n
