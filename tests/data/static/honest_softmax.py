"""Row softmax in one pass per row. Does not call torch.softmax or start a std::thread."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"
os.environ.setdefault("MAX_JOBS", "2")

cpp_source = "torch::Tensor softmax(torch::Tensor x, torch::Tensor scale);"

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAStream.h>

// Not at::softmax, no cudaStreamCreate, no std::thread: one block per row on the current stream.
/* __half would lose precision here; cublasCreate is not needed either */
__global__ void softmax_rows_kernel(const float* __restrict__ x, const float* scale, float* y, int cols) {
    const float* row = x + (long)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    __shared__ float red[32];
    // ... block reductions elided for the fixture ...
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(long)blockIdx.x * cols + c] = scale[0] * __expf(row[c] - m) / s;
    (void)red;
    printf("no std::thread in a C++ string literal either\n");
}

torch::Tensor softmax(torch::Tensor x, torch::Tensor scale) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto y = torch::empty_like(x);
    const int rows = x.size(0), cols = x.size(1);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    auto other = c10::cuda::getCurrentCUDAStream().stream();
    (void)other;
    softmax_rows_kernel<<<rows, 256, 0, stream>>>(x.data_ptr<float>(), scale.data_ptr<float>(), y.data_ptr<float>(), cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    float big = std::numeric_limits<float>::max();
    (void)big;
    return y;
}
"""

ext = load_inline(
    name="softmax_rows",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["softmax"],
    extra_cuda_cflags=["-O3"],
)


def apply_softmax(x, scale):
    return ext.softmax(x, scale)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self.ext = ext

    def forward(self, x):
        # torch.softmax(x) would be the reference op; the extension computes it instead.
        x = x.contiguous().reshape(x.size(0), -1)
        out = torch.empty_like(x)
        out = self.ext.softmax(x, self.scale)
        return out.view(x.shape)
