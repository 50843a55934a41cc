import torch
import torch.nn as nn

batch = 8
channels = 256
out_channels = 256
num_groups = 32
height = 128
width = 128


class Model(nn.Module):
    def __init__(self, channels, out_channels, num_groups):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups, channels, eps=1e-5)
        self.act = nn.SiLU()
        self.conv = nn.Conv2d(channels, out_channels, kernel_size=3, padding=1)
        with torch.no_grad():
            self.norm.weight.copy_(torch.rand(channels) + 0.5)
            self.norm.bias.copy_(torch.randn(channels) * 0.2)

    def forward(self, x):
        return self.conv(self.act(self.norm(x)))


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 2.0 + 0.5]


def get_init_inputs():
    return [channels, out_channels, num_groups]
