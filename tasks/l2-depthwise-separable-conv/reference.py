import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
channels = 256
out_channels = 512
height = 56
width = 56


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, dw_weight, dw_bias, pw_weight, pw_bias):
        c = x.shape[1]
        y = F.conv2d(x, dw_weight, dw_bias, stride=1, padding=1, groups=c)
        y = torch.clamp(y, 0.0, 6.0)
        y = F.conv2d(y, pw_weight[:, :, None, None], pw_bias)
        return torch.clamp(y, 0.0, 6.0)


def get_inputs():
    x = torch.randn(batch, channels, height, width)
    dw_weight = torch.randn(channels, 1, 3, 3) / 3.0
    dw_bias = torch.randn(channels) * 0.1
    pw_weight = torch.randn(out_channels, channels) / channels ** 0.5
    pw_bias = torch.randn(out_channels) * 0.1
    return [x, dw_weight, dw_bias, pw_weight, pw_bias]


def get_init_inputs():
    return []
