# Honest CPU solution for task depthwise-conv2d (both small configs: 7x7 and 3x3 kernels): direct loops in C++.
# Parameters are registered as conv.weight / conv.bias, the reference's names, and initialised the way the
# reference's convolution module initialises them (kaiming-uniform weight, uniform bias).
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor dwconv_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    const int64_t C = x.size(1), H = x.size(2), W = x.size(3), K = w.size(2), P = K / 2;
    const int64_t OH = H + 2 * P - K + 1, OW = W + 2 * P - K + 1;
    auto y = torch::empty({x.size(0), C, OH, OW}, x.options());
    const float* in = x.data_ptr<float>();
    const float* wt = w.data_ptr<float>();
    const float* bias = b.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, x.size(0) * C, 1, [&](int64_t begin, int64_t end) {
        for (int64_t nc = begin; nc < end; ++nc) {
            const int64_t c = nc % C;
            const float* plane = in + nc * H * W;
            const float* k = wt + c * K * K;
            for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                    float acc = bias[c];
                    for (int64_t i = 0; i < K; ++i) {
                        const int64_t ih = oh - P + i;
                        if (ih < 0 || ih >= H) continue;
                        for (int64_t j = 0; j < K; ++j) {
                            const int64_t iw = ow - P + j;
                            if (iw >= 0 && iw < W) acc += plane[ih * W + iw] * k[i * K + j];
                        }
                    }
                    out[(nc * OH + oh) * OW + ow] = acc;
                }
        }
    });
    return y;
}
"""

_ext = load_inline(
    name="kmc_honest_depthwise_conv2d",
    cpp_sources=cpp_source,
    functions=["dwconv_forward"],
    extra_cflags=["-O2"],
)


class ModelNew(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Module()
        self.conv.weight = nn.Parameter(torch.empty(channels, 1, kernel_size, kernel_size))
        self.conv.bias = nn.Parameter(torch.empty(channels))
        nn.init.kaiming_uniform_(self.conv.weight, a=math.sqrt(5))
        bound = 1.0 / math.sqrt(kernel_size * kernel_size)
        nn.init.uniform_(self.conv.bias, -bound, bound)

    def forward(self, x):
        return _ext.dwconv_forward(x.contiguous(), self.conv.weight.contiguous(), self.conv.bias.contiguous())
