import torch
import torch.nn as nn

batch = 16
channels = 128
length = 32768
kernel_size = 8
stride = 4
padding = 2


class Model(nn.Module):
    def __init__(self, kernel_size, stride, padding):
        super().__init__()
        # count_include_pad=True: zero padding counts towards the divisor (always kernel_size).
        self.pool = nn.AvgPool1d(
            kernel_size=kernel_size, stride=stride, padding=padding, count_include_pad=True
        )

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [kernel_size, stride, padding]
