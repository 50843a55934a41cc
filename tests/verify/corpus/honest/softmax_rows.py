# Honest CPU solution for task softmax-rows: per row, max, sum of exponentials, then scale (C++).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor softmax_rows_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int64_t cols = x.size(-1);
    const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, rows, 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
            const float* a = in + r * cols;
            float* b = out + r * cols;
            float m = -std::numeric_limits<float>::infinity();
            for (int64_t c = 0; c < cols; ++c)
                m = std::max(m, a[c]);
            double sum = 0.0;
            for (int64_t c = 0; c < cols; ++c) {
                b[c] = std::exp(a[c] - m);
                sum += b[c];
            }
            const float inv = static_cast<float>(1.0 / sum);
            for (int64_t c = 0; c < cols; ++c)
                b[c] *= inv;
        }
    });
    return y;
}
"""

_ext = load_inline(
    name="kmc_honest_softmax_rows",
    cpp_sources=cpp_source,
    functions=["softmax_rows_forward"],
    extra_cflags=["-O2"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.softmax_rows_forward(x.contiguous())
