import torch
import torch.nn as nn

batch = 8
in_channels = 3
base = 64
num_classes = 4
height = 256
width = 256


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.Conv2d(cout, cout, kernel_size=3, padding=1),
        nn.ReLU(),
    )


class Model(nn.Module):
    def __init__(self, in_channels, base, num_classes):
        super().__init__()
        self.enc = double_conv(in_channels, base)
        self.down = nn.MaxPool2d(2)
        self.bottleneck = double_conv(base, 2 * base)
        self.up = nn.ConvTranspose2d(2 * base, base, kernel_size=2, stride=2)
        self.dec = double_conv(2 * base, base)
        self.head = nn.Conv2d(base, num_classes, kernel_size=1)

    def forward(self, x):
        skip = self.enc(x)                        # (B, base, H, W)
        y = self.bottleneck(self.down(skip))      # (B, 2 base, H/2, W/2)
        y = self.up(y)                            # (B, base, H, W)
        y = self.dec(torch.cat([y, skip], dim=1)) # upsampled features first, then the skip
        return self.head(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, base, num_classes]
