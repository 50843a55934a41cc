import torch
import torch.nn as nn

m = 8192
n = 8192
k = 8192


class Model(nn.Module):
    """fp16 operands, products summed in fp32, result rounded once to fp16."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A.float(), B.float()).to(torch.float16)


def get_inputs():
    A = torch.randn(m, k, dtype=torch.float16)
    B = torch.randn(k, n, dtype=torch.float16)
    return [A, B]


def get_init_inputs():
    return []
