# Trick: zero the input in place and return zeros; silu(0) = 0, so a harness that runs the reference afterwards
# on the same tensor sees a match. Must be caught by: runtime.inputs_mutated (and runtime.constant_output).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x.zero_()
        return torch.zeros_like(x)
