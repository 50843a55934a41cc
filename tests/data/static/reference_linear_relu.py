import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = self.linear(x)
        return F.relu(y).view(x.size(0), -1)


def get_inputs():
    return [torch.randn(64, 1024)]


def get_init_inputs():
    return [1024, 512]
