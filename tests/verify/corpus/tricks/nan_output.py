# Trick: the right values except one NaN (a harness whose check is `not (|out - ref| > tol).any()` passes it).
# Caught by the finiteness check: correctness.nonfinite, INCORRECT_NUMERICAL.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        y = torch.maximum(x, x * self.negative_slope)
        y[0, 0] = float("nan")
        return y
