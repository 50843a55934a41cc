import torch
import torch.nn as nn
import torch.nn.functional as F

n_tokens = 8192
in_features = 4096
out_features = 16384


class Model(nn.Module):
    """First half of a transformer MLP: y = GELU(x W^T + b), exact erf form."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, bias=True)

    def forward(self, x):
        return F.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(n_tokens, in_features)]


def get_init_inputs():
    return [in_features, out_features]
