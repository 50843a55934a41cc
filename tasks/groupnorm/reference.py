import torch
import torch.nn as nn

batch = 16
channels = 512
num_groups = 32
height = 64
width = 64
eps = 1e-6


class Model(nn.Module):
    def __init__(self, num_groups, channels, eps):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups, channels, eps=eps, affine=True)
        with torch.no_grad():
            self.norm.weight.copy_(torch.rand(channels) + 0.5)
            self.norm.bias.copy_(torch.randn(channels) * 0.1)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 0.8 - 0.2]


def get_init_inputs():
    return [num_groups, channels, eps]
