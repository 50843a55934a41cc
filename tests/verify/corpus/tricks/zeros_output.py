# Trick: return all zeros, hoping a loose absolute tolerance accepts them (this task's softmax outputs are small:
# about 1/40). Must be caught by: runtime.constant_output.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, a, b):
        return torch.zeros(a.shape[0], a.shape[1], b.shape[2])
