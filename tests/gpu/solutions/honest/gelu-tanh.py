"""Honest CUDA solution for tasks/gelu-tanh: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

Grid-stride kernel with float4 loads/stores when aligned and a scalar tail. The arithmetic follows the reference's
operation order with explicitly rounded fp32 operations (no FMA contraction) and the full-precision tanhf, so the
result differs from PyTorch's element-wise chain by at most an ulp or two.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor gelu_tanh_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float gelu_tanh(float x) {
    const float c = 0.7978845608028654f;  // sqrt(2 / pi)
    // reference: inner = c * (x + 0.044715 * x * x * x); 0.5 * x * (1.0 + tanh(inner))
    const float cube = __fmul_rn(__fmul_rn(__fmul_rn(0.044715f, x), x), x);
    const float inner = __fmul_rn(c, __fadd_rn(x, cube));
    return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, tanhf(inner)));
}

__global__ void gelu_tanh_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, int vec) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (vec) {
        const int64_t n4 = n >> 2;
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
        float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
        for (int64_t i = tid; i < n4; i += stride) {
            float4 v = x4[i];
            v.x = gelu_tanh(v.x);
            v.y = gelu_tanh(v.y);
            v.z = gelu_tanh(v.z);
            v.w = gelu_tanh(v.w);
            y4[i] = v;
        }
        for (int64_t i = (n4 << 2) + tid; i < n; i += stride) y[i] = gelu_tanh(x[i]);
    } else {
        for (int64_t i = tid; i < n; i += stride) y[i] = gelu_tanh(x[i]);
    }
}

// ---- host ----
torch::Tensor gelu_tanh_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "gelu_tanh: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "gelu_tanh: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "gelu_tanh: x must be float32");
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
    gelu_tanh_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(xp, yp, n, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_gelu_tanh",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["gelu_tanh_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.gelu_tanh_forward(x.contiguous())
