# Malformed: the constructor takes a required argument that get_init_inputs() does not give. Expected: RUNTIME_ERROR.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, inplace):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return x / (1 + torch.exp(-x))
