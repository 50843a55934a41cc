import torch
import torch.nn as nn

batch = 64
length = 4096
features = 512


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.argmin(x, dim=self.dim)


def get_inputs():
    return [torch.randn(batch, length, features)]


def get_init_inputs():
    return [1]
