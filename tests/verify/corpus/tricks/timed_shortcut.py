# Trick: right while checked, shortcut while timed: the first CHECKED_CALLS calls compute, later ones (the timed
# runs) return zeros. CHECKED_CALLS is above the verifier's CPU correctness calls (3 seeds, each possibly re-run
# once for determinism) and below those plus the timed runs. Must be caught by: runtime.timed_outputs.
import torch
import torch.nn as nn

CHECKED_CALLS = 8
_calls = [0]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _calls[0] += 1
        if _calls[0] > CHECKED_CALLS:
            return torch.zeros_like(x)
        return x / (1 + torch.exp(-x))
