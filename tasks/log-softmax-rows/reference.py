import torch
import torch.nn as nn

n_rows = 2048
vocab = 32000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits):
        return torch.log_softmax(logits, dim=1)


def get_inputs():
    return [torch.randn(n_rows, vocab) * 6.0]


def get_init_inputs():
    return []
