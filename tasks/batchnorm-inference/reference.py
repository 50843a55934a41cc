import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 64
channels = 256
height = 64
width = 64
eps = 1e-5


class Model(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x, running_mean, running_var, weight, bias):
        return F.batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=self.eps)


def get_inputs():
    x = torch.randn(batch, channels, height, width) * 1.5 + 0.3
    running_mean = torch.randn(channels) * 0.3
    running_var = torch.rand(channels) * 2.0 + 0.25
    weight = torch.randn(channels)
    bias = torch.randn(channels) * 0.2
    return [x, running_mean, running_var, weight, bias]


def get_init_inputs():
    return [eps]
