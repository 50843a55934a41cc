import torch
import torch.nn as nn

batch = 4
seq_len = 2048
hidden = 4096
out_features = 12288
eps = 1e-6


class Model(nn.Module):
    def __init__(self, hidden, out_features, eps):
        super().__init__()
        self.eps = eps
        self.norm_weight = nn.Parameter(torch.rand(hidden) + 0.5)
        self.proj = nn.Linear(hidden, out_features, bias=False)

    def forward(self, x):
        inv_rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        normed = x * inv_rms * self.norm_weight
        return self.proj(normed)


def get_inputs():
    return [torch.randn(batch, seq_len, hidden) * 3.0]


def get_init_inputs():
    return [hidden, out_features, eps]
