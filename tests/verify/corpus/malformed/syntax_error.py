# Malformed: a Python syntax error (missing colon): the file does not compile. Expected: COMPILE_ERROR.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x)
        return torch.maximum(x, x * self.negative_slope)
