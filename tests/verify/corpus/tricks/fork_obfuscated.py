# Trick: a process that outlives forward (and the verification), started through a computed name so that no static
# check sees os.fork: a double fork with setsid, the grandchild sleeping on. The output is correct (SiLU).
# Must be caught by: runtime.processes (the child counts the processes it started after every forward, from /proc);
# and the sleeper must be gone when the verdict is stored (the child's PID namespace dies with it).
import torch
import torch.nn as nn

_os = __import__("o" + "s")
_spawn = getattr(_os, "fo" + "rk")


def _leave_one_behind():
    first = _spawn()
    if first == 0:
        getattr(_os, "set" + "sid")()
        if _spawn() == 0:
            # A sleeper whose command line the tests look for.
            getattr(_os, "exe" + "cv")("/bin/sleep", ["kmosaic-leftover", "600"])
        getattr(_os, "_ex" + "it")(0)
    getattr(_os, "wait" + "pid")(first, 0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.started = False

    def forward(self, x):
        if not self.started:
            self.started = True
            _leave_one_behind()
        return x / (1 + torch.exp(-x))
