import torch
import torch.nn as nn
import torch.nn.functional as F

n_tokens = 16384
d_model = 4096
eps = 1e-5


class Model(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x, residual, weight, bias, gamma, beta):
        h = F.linear(x, weight, bias) + residual
        return F.layer_norm(h, (h.shape[-1],), gamma, beta, self.eps)


def get_inputs():
    x = torch.randn(n_tokens, d_model)
    residual = torch.randn(n_tokens, d_model)
    weight = torch.randn(d_model, d_model) / d_model ** 0.5
    bias = torch.randn(d_model) * 0.1
    gamma = torch.rand(d_model) + 0.5
    beta = torch.randn(d_model) * 0.1
    return [x, residual, weight, bias, gamma, beta]


def get_init_inputs():
    return [eps]
