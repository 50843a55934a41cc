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


class Trusted:
    """Snapshot of the watched functions; use its attributes, never the module globals, once a solution ran."""

    def __init__(self):
        settle_lazy_patches()
        self._ids = {}
        for name, get in _WATCHED:
            try:
                self._ids[name] = id(get())
            except Exception:  # noqa: BLE001 - a missing attribute is simply not watched
                pass
        self.perf_counter = time.perf_counter
        self.synchronize = torch.cuda.synchronize
        self.Event = torch.cuda.Event
        self.sleep = getattr(torch.cuda, "_sleep", None) or (lambda cycles: None)
        self.active_count = threading.active_count
        self.listdir = os.listdir
        self.isfinite = torch.isfinite
        self.read_all = torch.sum  # the L2 flush (timing.run)
        self.tensor_type = torch.Tensor

    def replaced(self):
        """Names of watched functions that are no longer the objects they were."""
        out = []
        for name, get in _WATCHED:
            if name not in self._ids:
                continue
            try:
                now = id(get())
            except Exception:  # noqa: BLE001
                out.append(name)
                continue
            if now != self._ids[name]:
                out.append(name)
        return out

    def os_threads(self):
        return len(self.listdir("/proc/self/task"))
