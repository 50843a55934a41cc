# Trick: output from torch.empty with the last sample never written (it holds whatever the memory held).
# No check fires; the unwritten values are wrong (or differ between re-runs): INCORRECT_NUMERICAL.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.shape[0] - 1
        out[:n] = x[:n] / (1 + torch.exp(-x[:n]))
        return out
