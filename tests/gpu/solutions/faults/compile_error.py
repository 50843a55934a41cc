# FAULT (leaky-relu): a CUDA compile error inside cuda_sources: the kernel uses an identifier that is declared
# nowhere (`neg_slope` instead of the parameter `slope`). nvcc reports exactly one error, on the line
# carrying the error-line marker comment below.
# MUST BE CAUGHT AS: COMPILE_ERROR, with the compiler diagnostic mapped back to that line of this file (the
# manifest's error_line).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor leaky_relu_forward(torch::Tensor x, double negative_slope);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void leaky_relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, float slope) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i] = v >= 0.0f ? v : v * neg_slope;  // ERROR-LINE: neg_slope is not declared
    }
}

// ---- host ----
torch::Tensor leaky_relu_forward(torch::Tensor x, double negative_slope) {
    TORCH_CHECK(x.is_cuda(), "leaky_relu: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "leaky_relu: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "leaky_relu: x must be float32");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    int64_t blocks = (n + 255) / 256;
    if (blocks > 8192) blocks = 8192;
    leaky_relu_kernel<<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n, (float)negative_slope);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_fault_compile_error",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["leaky_relu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = float(negative_slope)

    def forward(self, x):
        return _ext.leaky_relu_forward(x.contiguous(), self.negative_slope)
