import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 16
in_channels = 256
out_channels = 256
length = 16384
kernel_size = 5
stride = 2
padding = 2


class Model(nn.Module):
    def __init__(self, stride, padding):
        super().__init__()
        self.stride = stride
        self.padding = padding

    def forward(self, x, weight, bias):
        return F.conv1d(x, weight, bias, stride=self.stride, padding=self.padding)


def get_inputs():
    x = torch.randn(batch, in_channels, length)
    weight = torch.randn(out_channels, in_channels, kernel_size) * 0.05
    bias = torch.randn(out_channels) * 0.1
    return [x, weight, bias]


def get_init_inputs():
    return [stride, padding]
