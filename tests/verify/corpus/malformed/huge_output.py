# Malformed: a 100 MB output (25,000,000 float32 values, not constant) of the wrong shape; the harness must carry
# or refuse it without failing itself. Expected: INCORRECT_SHAPE.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return torch.arange(25_000_000, dtype=torch.float32)
