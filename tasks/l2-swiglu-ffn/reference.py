import torch
import torch.nn as nn
import torch.nn.functional as F

n_tokens = 4096
d_model = 4096
d_ff = 11008


class Model(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.gate_proj = nn.Linear(d_model, d_ff, bias=False)
        self.up_proj = nn.Linear(d_model, d_ff, bias=False)
        self.down_proj = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


def get_inputs():
    return [torch.randn(n_tokens, d_model)]


def get_init_inputs():
    return [d_model, d_ff]
