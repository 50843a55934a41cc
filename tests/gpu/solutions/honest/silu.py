"""Honest CUDA solution for tasks/silu: y = x * sigmoid(x), sigmoid(x) = 1 / (1 + exp(-x)) as PyTorch computes it.

Grid-stride kernel, float4 loads/stores when aligned, scalar tail; full-precision expf and an IEEE division.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor silu_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float silu_op(float x) {
    const float s = 1.0f / (1.0f + expf(-x));
    return x * s;
}

__global__ void silu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, int vec) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (vec) {
        const int64_t n4 = n >> 2;
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
        float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
        for (int64_t i = tid; i < n4; i += stride) {
            float4 v = x4[i];
            v.x = silu_op(v.x);
            v.y = silu_op(v.y);
            v.z = silu_op(v.z);
            v.w = silu_op(v.w);
            y4[i] = v;
        }
        for (int64_t i = (n4 << 2) + tid; i < n; i += stride) y[i] = silu_op(x[i]);
    } else {
        for (int64_t i = tid; i < n; i += stride) y[i] = silu_op(x[i]);
    }
}

// ---- host ----
torch::Tensor silu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "silu: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "silu: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "silu: x must be float32");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const int vec = ((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0;
    const int threads = 256;
    const int64_t work = vec ? (n >> 2) + (n & 3) : n;
    int64_t blocks = (work + threads - 1) / threads;
    if (blocks > 8192) blocks = 8192;
    if (blocks < 1) blocks = 1;
    silu_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(xp, yp, n, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_silu",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["silu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.silu_forward(x.contiguous())
