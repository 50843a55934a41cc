import torch
import torch.nn as nn

batch = 32
in_channels = 128
out_channels = 256
height = 56
width = 56


class Model(nn.Module):
    """3x3 convolution with bias, stride 1 and zero padding 1 (output keeps H x W)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
