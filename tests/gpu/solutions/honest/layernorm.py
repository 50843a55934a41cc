"""Honest CUDA solution for tasks/layernorm: F.layer_norm over the last dimension with gamma, beta and eps.

One 256-thread block per row, three passes over the row (the second and third hit L1/L2): mean, then the biased
variance as the mean of (x - mean)^2 (two-pass, no cancellation), then y = (x - mean) * rstd * gamma + beta.
float4 loads/stores when the hidden size is a multiple of 4 and every pointer is aligned.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define LN_THREADS 256

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float block_sum(float v, float* sh) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    if (wid == 0) {
        float w = lane < nw ? sh[lane] : 0.0f;
        w = warp_sum(w);
        if (lane == 0) sh[32] = w;
    }
    __syncthreads();
    const float r = sh[32];
    __syncthreads();
    return r;
}

template <bool VEC>
__global__ void __launch_bounds__(LN_THREADS) layernorm_kernel(const float* __restrict__ x,
                                                              const float* __restrict__ gamma,
                                                              const float* __restrict__ beta, float* __restrict__ y,
                                                              int64_t H, float eps) {
    __shared__ float sh[33];
    const int64_t row = blockIdx.x;
    const float* __restrict__ xr = x + row * H;
    float* __restrict__ yr = y + row * H;
    const int64_t n4 = H >> 2;

    float s = 0.0f;
    if (VEC) {
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
        for (int64_t j = threadIdx.x; j < n4; j += LN_THREADS) {
            const float4 v = x4[j];
            s += (v.x + v.y) + (v.z + v.w);
        }
    } else {
        for (int64_t j = threadIdx.x; j < H; j += LN_THREADS) s += xr[j];
    }
    const float mean = block_sum(s, sh) / (float)H;

    float q = 0.0f;
    if (VEC) {
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
        for (int64_t j = threadIdx.x; j < n4; j += LN_THREADS) {
            const float4 v = x4[j];
            const float a = v.x - mean, b = v.y - mean, c = v.z - mean, d = v.w - mean;
            q += (a * a + b * b) + (c * c + d * d);
        }
    } else {
        for (int64_t j = threadIdx.x; j < H; j += LN_THREADS) {
            const float a = xr[j] - mean;
            q += a * a;
        }
    }
    const float var = block_sum(q, sh) / (float)H;
    const float rstd = rsqrtf(var + eps);

    if (VEC) {
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
        const float4* __restrict__ g4 = reinterpret_cast<const float4*>(gamma);
        const float4* __restrict__ b4 = reinterpret_cast<const float4*>(beta);
        float4* __restrict__ y4 = reinterpret_cast<float4*>(yr);
        for (int64_t j = threadIdx.x; j < n4; j += LN_THREADS) {
            const float4 v = x4[j], g = g4[j], b = b4[j];
            float4 o;
            o.x = (v.x - mean) * rstd * g.x + b.x;
            o.y = (v.y - mean) * rstd * g.y + b.y;
            o.z = (v.z - mean) * rstd * g.z + b.z;
            o.w = (v.w - mean) * rstd * g.w + b.w;
            y4[j] = o;
        }
    } else {
        for (int64_t j = threadIdx.x; j < H; j += LN_THREADS) yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}

// ---- host ----
torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    TORCH_CHECK(x.is_cuda() && gamma.is_cuda() && beta.is_cuda(), "layernorm: tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && gamma.is_contiguous() && beta.is_contiguous(), "layernorm: need contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat && gamma.scalar_type() == torch::kFloat &&
                    beta.scalar_type() == torch::kFloat,
                "layernorm: tensors must be float32");
    TORCH_CHECK(x.dim() >= 1, "layernorm: x must have at least one dimension");
    const int64_t H = x.size(x.dim() - 1);
    TORCH_CHECK(gamma.numel() == H && beta.numel() == H, "layernorm: gamma/beta size mismatch");
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    const int64_t rows = x.numel() / H;
    TORCH_CHECK(rows <= 2147483647LL, "layernorm: too many rows");
    const float* xp = x.data_ptr<float>();
    const float* gp = gamma.data_ptr<float>();
    const float* bp = beta.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const uintptr_t align = reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(gp) |
                            reinterpret_cast<uintptr_t>(bp) | reinterpret_cast<uintptr_t>(yp);
    const bool vec = (H % 4 == 0) && ((align & 15) == 0);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (vec) layernorm_kernel<true><<<(unsigned)rows, LN_THREADS, 0, stream>>>(xp, gp, bp, yp, H, (float)eps);
    else layernorm_kernel<false><<<(unsigned)rows, LN_THREADS, 0, stream>>>(xp, gp, bp, yp, H, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_layernorm",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["layernorm_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = float(eps)

    def forward(self, x, gamma, beta):
        return _ext.layernorm_forward(x.contiguous(), gamma.contiguous(), beta.contiguous(), self.eps)
