import torch
import torch as t
import torch.nn as nn
import torch.nn.functional as F
from torch import softmax as sm
from torch.utils.cpp_extension import load_inline

src = """
torch::Tensor run(torch::Tensor x) {
    auto a = at::softmax(x, -1);  // at::softmax in a comment does not count
    auto b = torch::softmax(a, -1);
    return b.softmax(-1);
}
"""
ext = load_inline(name="f", cpp_sources=src, functions=["run"])
act = torch.softmax


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.Softmax(dim=-1)

    def forward(self, x):
        a = F.softmax(x, dim=-1)
        b = sm(a, -1)
        c = t.softmax(b, -1)
        d = x.float().softmax(-1)
        e = act(d, -1)
        f = getattr(torch, "softmax")(e, -1)
        return ext.run(f)
