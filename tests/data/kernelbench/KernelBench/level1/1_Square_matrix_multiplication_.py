import torch
import torch.nn as nn

N = 2048


class Model(nn.Module):
    """C = A @ B for square matrices (test fixture written for KernelMosaic)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
