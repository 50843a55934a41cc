import torch
import torch.nn as nn

batch = 16384
in_features = 2048
out_features = 8192


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = self.linear(x)
        h = h * torch.sigmoid(h)
        return torch.sum(h, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
