# Trick: a background worker thread writes the result. The first call (a naive harness's correctness check) waits
# for it; later calls (the timed runs) return torch.empty at once and the worker fills it later.
# Must be caught by: static.threads (import threading) and runtime.threads (the worker started by the first
# forward is still alive after it).
import queue
import threading

import torch
import torch.nn as nn

_jobs = queue.Queue()
_worker = []


def _work():
    while True:
        x, out, done = _jobs.get()
        torch.div(x, 1 + torch.exp(-x), out=out)
        done.set()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        first = not _worker
        if first:
            _worker.append(threading.Thread(target=_work, daemon=True))
            _worker[0].start()
        out = torch.empty_like(x)
        done = threading.Event()
        _jobs.put((x, out, done))
        if first:
            done.wait()
        return out
