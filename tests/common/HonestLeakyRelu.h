#pragma once
// The leaky-relu task's honest CPU solution as the tests that need a PASSED verdict write it: a C++ loop built with
// load_inline, called from forward (a forward on torch ops alone is static.no_compiled_call). Its load_inline call
// is the one of tests/verify/corpus/honest/leaky_relu.py, character for character, so every test that verifies it
// with the suite's build cache (KMOSAIC_VERIFY_BUILD_CACHE) reuses one build.

#include <QString>

namespace km::test {

// The imports, the kernel and its build (24 lines).
inline QString leakyReluKernel()
{
    return QStringLiteral(R"PY(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor leaky_relu_forward(torch::Tensor x, double negative_slope) {
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    const float slope = static_cast<float>(negative_slope);
    at::parallel_for(0, x.numel(), 16384, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
            out[i] = in[i] >= 0.0f ? in[i] : in[i] * slope;
    });
    return y;
}
"""

_ext = load_inline(
    name="kmc_honest_leaky_relu",
    cpp_sources=cpp_source,
    functions=["leaky_relu_forward"],
    extra_cflags=["-O2"],
)
)PY");
}

// The whole file: `prefix` first (an extra import), then the kernel, then ModelNew with `forwardLine` (the default
// is right; one without its ':' is a syntax error at forwardLineNumber()) and `body` as forward's body.
inline QString honestLeakyRelu(const QString& forwardLine = QStringLiteral("    def forward(self, x):\n"),
                               const QString& prefix = {},
                               const QString& body = QStringLiteral(
                                   "        return _ext.leaky_relu_forward(x.contiguous(), self.negative_slope)\n"))
{
    return prefix + leakyReluKernel() +
           QStringLiteral("\n\nclass ModelNew(nn.Module):\n    def __init__(self, negative_slope):\n"
                          "        super().__init__()\n        self.negative_slope = negative_slope\n\n") +
           forwardLine + body;
}

// The 1-based line of `def forward` in honestLeakyRelu(..., prefix).
inline int forwardLineNumber(const QString& prefix = {})
{
    const QString file = honestLeakyRelu(QStringLiteral("    def forward(self, x):\n"), prefix);
    return int(file.left(file.indexOf(QLatin1String("    def forward"))).count(QLatin1Char('\n'))) + 1;
}

}  // namespace km::test
