import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 64
out_channels = 128
height = 112
width = 112
eps = 1e-5


class Model(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x, conv_weight, conv_bias, bn_mean, bn_var, bn_weight, bn_bias):
        y = F.conv2d(x, conv_weight, conv_bias, stride=1, padding=1)
        y = F.batch_norm(y, bn_mean, bn_var, bn_weight, bn_bias, training=False, eps=self.eps)
        return F.relu(y)


def get_inputs():
    fan_in = in_channels * 9
    x = torch.randn(batch, in_channels, height, width)
    conv_weight = torch.randn(out_channels, in_channels, 3, 3) / fan_in ** 0.5
    conv_bias = torch.randn(out_channels) * 0.1
    bn_mean = torch.randn(out_channels) * 0.1
    bn_var = torch.rand(out_channels) + 0.5
    bn_weight = torch.rand(out_channels) + 0.5
    bn_bias = torch.randn(out_channels) * 0.1
    return [x, conv_weight, conv_bias, bn_mean, bn_var, bn_weight, bn_bias]


def get_init_inputs():
    return [eps]
