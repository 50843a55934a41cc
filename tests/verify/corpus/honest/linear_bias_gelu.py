# Honest CPU solution for the L2 task l2-linear-bias-gelu: y = GELU(x W^T + b), GEMM and erf-GELU epilogue in
# one C++ loop nest. Parameters are registered as fc.weight / fc.bias, the reference's names, and initialised the
# way nn.Linear does.
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor linear_gelu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    const int64_t rows = x.size(0), in_f = x.size(1), out_f = w.size(0);
    auto y = torch::empty({rows, out_f}, x.options());
    const float* a = x.data_ptr<float>();
    const float* wt = w.data_ptr<float>();
    const float* bias = b.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, rows, 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
            for (int64_t o = 0; o < out_f; ++o) {
                double acc = bias[o];
                for (int64_t k = 0; k < in_f; ++k)
                    acc += static_cast<double>(a[r * in_f + k]) * wt[o * in_f + k];
                const float h = static_cast<float>(acc);
                out[r * out_f + o] = 0.5f * h * (1.0f + std::erf(h * 0.70710678118654752f));
            }
    });
    return y;
}
"""

_ext = load_inline(
    name="kmc_honest_linear_bias_gelu",
    cpp_sources=cpp_source,
    functions=["linear_gelu_forward"],
    extra_cflags=["-O2"],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Module()
        self.fc.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.fc.bias = nn.Parameter(torch.empty(out_features))
        nn.init.kaiming_uniform_(self.fc.weight, a=math.sqrt(5))
        bound = 1.0 / math.sqrt(in_features)
        nn.init.uniform_(self.fc.bias, -bound, bound)

    def forward(self, x):
        return _ext.linear_gelu_forward(x.contiguous(), self.fc.weight.contiguous(), self.fc.bias.contiguous())
