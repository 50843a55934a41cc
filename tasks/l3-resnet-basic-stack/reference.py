import torch
import torch.nn as nn

batch = 32
in_channels = 64
out_channels = 128
height = 56
width = 56


def _randomize_bn(bn):
    # Non-trivial running statistics and affine parameters, as in a trained network.
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn(bn.num_features) * 0.1)
        bn.running_var.copy_(torch.rand(bn.num_features) * 0.5 + 0.75)
        bn.weight.copy_(torch.rand(bn.num_features) * 0.5 + 0.75)
        bn.bias.copy_(torch.randn(bn.num_features) * 0.1)
    return bn


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = _randomize_bn(nn.BatchNorm2d(cout))
        self.conv2 = nn.Conv2d(cout, cout, 3, stride=1, padding=1, bias=False)
        self.bn2 = _randomize_bn(nn.BatchNorm2d(cout))
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                _randomize_bn(nn.BatchNorm2d(cout)),
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.block1 = BasicBlock(in_channels, out_channels, stride=2)
        self.block2 = BasicBlock(out_channels, out_channels, stride=1)

    def forward(self, x):
        return self.block2(self.block1(x))


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
