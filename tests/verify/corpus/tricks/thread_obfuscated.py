# Trick: the background writer of thread_writer.py, its thread and job-queue modules reached through __import__
# of computed names, so that no static check sees them. Must be caught by: runtime.threads.
import torch
import torch.nn as nn

_th = __import__("thr" + "eading")
_jobs = getattr(__import__("qu" + "eue"), "Qu" + "eue")()
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
            _worker.append(getattr(_th, "Thr" + "ead")(target=_work, daemon=True))
            _worker[0].start()
        out = torch.empty_like(x)
        done = getattr(_th, "Ev" + "ent")()
        _jobs.put((x, out, done))
        if first:
            done.wait()
        return out
