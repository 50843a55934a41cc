# Honest CPU solution for task mean-last-dims: mean over H and W of an NCHW tensor, one C++ loop per (n, c).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor mean_hw_forward(torch::Tensor x) {
    const int64_t planes = x.size(0) * x.size(1);
    const int64_t hw = x.size(2) * x.size(3);
    auto y = torch::empty({x.size(0), x.size(1)}, x.options());
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, planes, 1, [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
            double sum = 0.0;
            for (int64_t i = 0; i < hw; ++i)
                sum += in[p * hw + i];
            out[p] = static_cast<float>(sum / static_cast<double>(hw));
        }
    });
    return y;
}
"""

_ext = load_inline(
    name="kmc_honest_mean_last_dims",
    cpp_sources=cpp_source,
    functions=["mean_hw_forward"],
    extra_cflags=["-O2"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.mean_hw_forward(x.contiguous())
