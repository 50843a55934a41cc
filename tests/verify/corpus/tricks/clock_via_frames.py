# Trick (issue 17): reach the harness's trusted clock from inside forward by walking frames (a traceback's tb_frame,
# then f_back, f_locals; names computed so that no static check sees them), and slow it down through vars() or
# setattr, so the (correct) SiLU looks thousands of times faster than the reference.
# Must be caught by: runtime.identity (the snapshot is frozen: vars() fails, setattr raises and is recorded).
import torch
import torch.nn as nn

_F = "f_" + "back"
_L = "f_" + "locals"
_slow = [None]


def _tamper():
    try:
        raise RuntimeError("probe")
    except RuntimeError as e:
        frame = getattr(getattr(e, "__trace" + "back__"), "tb_" + "frame")
    while frame is not None:
        for value in list(getattr(frame, _L).values()):
            clock = getattr(value, "perf_" + "counter", None)
            if clock is None or not callable(clock) or value is _slow:
                continue
            _slow[0] = clock
            fake = (lambda real=clock: real() / 5000.0)
            try:
                vars(value)["perf_" + "counter"] = fake
            except TypeError:
                pass
            try:
                setattr(value, "perf_" + "counter", fake)
            except AttributeError:
                pass
        frame = getattr(frame, _F)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _tamper()
        return x / (1 + torch.exp(-x))
