import torch
import torch.nn as nn

n_tokens = 8192
d_model = 2048
d_hidden = 8192
depth = 2


class MLPBlock(nn.Module):
    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, d_hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class Model(nn.Module):
    """`depth` residual blocks x <- x + fc2(gelu(fc1(layernorm(x)))), then a final LayerNorm."""

    def __init__(self, d_model, d_hidden, depth):
        super().__init__()
        self.blocks = nn.ModuleList([MLPBlock(d_model, d_hidden) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(d_model)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x)


def get_inputs():
    return [torch.randn(n_tokens, d_model)]


def get_init_inputs():
    return [d_model, d_hidden, depth]
