# Malformed: a C++ compile error in cpp_sources (an undeclared identifier on the line with the `// ERROR` marker).
# Expected: COMPILE_ERROR, with the compiler's diagnostic mapped to that line of this file.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor silu_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i)
        out[i] = in[i] / (1.0f + std::exp(-in[i])) * undeclared_scale;  // ERROR-LINE: undeclared identifier
    return y;
}
"""

_ext = load_inline(
    name="kmc_malformed_cpp_compile_error",
    cpp_sources=cpp_source,
    functions=["silu_forward"],
    extra_cflags=["-O2"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.silu_forward(x.contiguous())
