import torch
import torch.nn as nn

batch = 16
in_channels = 64
out_channels = 32
height = 128
width = 128


class Model(nn.Module):
    """Transposed convolution that doubles H and W: kernel 4, stride 2, padding 1, with bias."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(
            in_channels, out_channels, kernel_size=4, stride=2, padding=1, bias=True
        )

    def forward(self, x):
        return self.deconv(x)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
