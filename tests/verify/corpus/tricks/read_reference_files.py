# Trick: return the reference's own outputs, read from files the verifier leaves where the solution can read them.
# A harness whose reference child wrote its outputs to disk (ref_<config>_<seed>.bin, then ref_timed.bin) before the
# solution ran handed them over: this file then PASSED on the CPU. The reference child now keeps its outputs in its
# own memory (on the GPU) and compares there, so nothing is found and the input returned instead is
# INCORRECT_NUMERICAL.
import glob
import json
import os

import numpy as np
import torch
import torch.nn as nn

_calls = [0]


def _read(path):
    """A tensorio file: one JSON header line, then each tensor's bytes at a 64-byte aligned offset."""
    with open(path, "rb") as f:
        data = f.read()
    header = data[:data.index(b"\n") + 1]
    metas = json.loads(header)
    pos = len(header)
    pos += -pos % 64
    m = metas[0]
    values = np.frombuffer(data, dtype=np.float32, count=m["nbytes"] // 4, offset=pos)
    return torch.from_numpy(values.copy()).reshape(m["shape"])


def _stolen(index):
    root = os.path.dirname(os.path.dirname(os.getcwd()))  # the worker's scratch folder, two levels up
    name = "ref_timed.bin" if index >= 4 else f"ref_0_{max(0, index - 1)}.bin"  # seed 0 runs twice
    for path in glob.glob(os.path.join(root, "*", "*", name)):  # <scratch>/<verification>/reference/
        try:
            return _read(path)
        except (OSError, ValueError, KeyError):
            continue
    return None


class ModelNew(nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        index = _calls[0]
        _calls[0] += 1
        out = _stolen(index)
        if out is None or tuple(out.shape) != tuple(x.shape):
            return x.clone()  # wrong for every negative value
        return out.to(x.device)
