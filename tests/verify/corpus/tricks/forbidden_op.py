# Trick: call the reference op (torch.softmax, one of the task's forbidden_ops) instead of writing a kernel.
# Must be caught by: static.forbidden_op (static.reference_op also fires, as a warning).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)
