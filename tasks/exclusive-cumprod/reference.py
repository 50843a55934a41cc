import torch
import torch.nn as nn

n_seqs = 4096
seq_len = 16384


class Model(nn.Module):
    """y[:, 0] = 1 and y[:, j] = x[:, 0] * ... * x[:, j - 1]."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        inclusive = torch.cumprod(x, dim=-1)
        ones = torch.ones_like(x[..., :1])
        return torch.cat([ones, inclusive[..., :-1]], dim=-1)


def get_inputs():
    return [1.0 + 0.01 * torch.randn(n_seqs, seq_len)]


def get_init_inputs():
    return []
