# Trick found only off N(0, 1): RMSNorm in C++ with its own epsilon, 1e-4 "for stability", instead of the task's 1e-6.
# On get_inputs()'s randn rows the mean square is about 1 and the error about 5e-5, inside the tolerance; on inputs
# scaled by 0.01 the mean square is 1e-4, the epsilon doubles it and the outputs are 30% off: INCORRECT_NUMERICAL on
# the x0.01 distribution.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor rmsnorm_forward(torch::Tensor x, torch::Tensor weight, double eps) {
    auto y = torch::empty_like(x);
    const int64_t cols = x.size(-1);
    const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
    const float* in = x.data_ptr<float>();
    const float* w = weight.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, rows, 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
            const float* a = in + r * cols;
            double ss = 0.0;
            for (int64_t c = 0; c < cols; ++c)
                ss += static_cast<double>(a[c]) * a[c];
            const float inv = static_cast<float>(1.0 / std::sqrt(ss / cols + 1e-4));
            for (int64_t c = 0; c < cols; ++c)
                out[r * cols + c] = a[c] * inv * w[c];
        }
    });
    return y;
}
"""

_ext = load_inline(
    name="kmc_trick_rmsnorm_eps",
    cpp_sources=cpp_source,
    functions=["rmsnorm_forward"],
    extra_cflags=["-O2"],
)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(hidden) + 0.5)

    def forward(self, x):
        return _ext.rmsnorm_forward(x.contiguous(), self.weight.contiguous(), self.eps)
