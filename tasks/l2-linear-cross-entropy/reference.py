import torch
import torch.nn as nn
import torch.nn.functional as F

n_tokens = 8192
d_model = 2048
vocab = 32000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, hidden, weight, bias, targets):
        logits = F.linear(hidden, weight, bias)
        return F.cross_entropy(logits, targets, reduction="mean")


def get_inputs():
    hidden = torch.randn(n_tokens, d_model)
    weight = torch.randn(vocab, d_model) * 0.02
    bias = torch.randn(vocab) * 0.02
    targets = torch.randint(0, vocab, (n_tokens,), dtype=torch.int64)
    return [hidden, weight, bias, targets]


def get_init_inputs():
    return []
