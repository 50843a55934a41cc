# Tries to leave marks outside its scratch folder and to reach the network at import time, then computes an honest
# LeakyReLU (the kernel of honest/leaky_relu.py). test_verify_cli checks that no mark exists afterwards and that the
# verdict records the isolation.
import os
import socket

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

for target in ("/tmp/kmosaic-escape-marker", os.path.join(os.path.dirname(os.getcwd()), "kmosaic-escape-marker")):
    try:
        with open(target, "w") as f:
            f.write("escaped")
    except OSError:
        pass

try:
    socket.create_connection(("192.0.2.1", 80), timeout=2).close()  # TEST-NET-1: never answers on a host network
except OSError:
    pass


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


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return _ext.leaky_relu_forward(x.contiguous(), self.negative_slope)
