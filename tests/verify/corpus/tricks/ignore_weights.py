# Trick: ignore the LayerNorm weights and biases (they default to 1 and 0, so with default parameters the result
# is right). No check fires; caught by randomised identity-default parameters copied into the solution:
# INCORRECT_NUMERICAL. Parameters keep the reference's names so the state-dict copy applies.
import torch
import torch.nn as nn


class _Block(nn.Module):
    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)  # holds norm.weight / norm.bias, never used
        self.fc1 = nn.Linear(d_model, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_model)


def _normalize(x):
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) * (x - mu)).mean(dim=-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + 1e-5)


def _dense(x, lin):
    return torch.mm(x, lin.weight.t()) + lin.bias


class ModelNew(nn.Module):
    def __init__(self, d_model, d_hidden, depth):
        super().__init__()
        self.blocks = nn.ModuleList([_Block(d_model, d_hidden) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(d_model)

    def forward(self, x):
        for b in self.blocks:
            h = _dense(_normalize(x), b.fc1)
            h = 0.5 * h * (1 + torch.erf(h * 0.7071067811865476))
            x = x + _dense(h, b.fc2)
        return _normalize(x)
