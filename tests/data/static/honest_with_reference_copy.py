# The agent kept the reference next to its solution: dead code, since nothing in the file uses Model.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


ext = load_inline(name="sm", cpp_sources="torch::Tensor sm(torch::Tensor x);", cuda_sources="", functions=["sm"])


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return ext.sm(x.contiguous())


def get_inputs():
    return [torch.randn(16, 16384)]


def get_init_inputs():
    return []
