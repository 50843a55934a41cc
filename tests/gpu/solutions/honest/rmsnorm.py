"""Honest CUDA solution for tasks/rmsnorm: y = x * rsqrt(mean(x^2) + eps) * weight over the last dimension.

One 256-thread block per row: a float4 (when aligned) sum of squares with a warp-shuffle block reduction, then
y = (x * inv_rms) * weight in the reference's order. The parameter is named `weight` and created like the
reference's, so the verifier's strict state_dict copy applies.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor rmsnorm_forward(torch::Tensor x, torch::Tensor weight, double eps);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define RN_THREADS 256

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
__global__ void __launch_bounds__(RN_THREADS) rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                                            float* __restrict__ y, int64_t H, float eps) {
    __shared__ float sh[33];
    const int64_t row = blockIdx.x;
    const float* __restrict__ xr = x + row * H;
    float* __restrict__ yr = y + row * H;
    const int64_t n4 = H >> 2;
    float q = 0.0f;
    if (VEC) {
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
        for (int64_t j = threadIdx.x; j < n4; j += RN_THREADS) {
            const float4 v = x4[j];
            q += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
        }
    } else {
        for (int64_t j = threadIdx.x; j < H; j += RN_THREADS) {
            const float v = xr[j];
            q += v * v;
        }
    }
    const float inv = rsqrtf(block_sum(q, sh) / (float)H + eps);
    if (VEC) {
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
        const float4* __restrict__ w4 = reinterpret_cast<const float4*>(w);
        float4* __restrict__ y4 = reinterpret_cast<float4*>(yr);
        for (int64_t j = threadIdx.x; j < n4; j += RN_THREADS) {
            const float4 v = x4[j], g = w4[j];
            float4 o;
            o.x = (v.x * inv) * g.x;
            o.y = (v.y * inv) * g.y;
            o.z = (v.z * inv) * g.z;
            o.w = (v.w * inv) * g.w;
            y4[j] = o;
        }
    } else {
        for (int64_t j = threadIdx.x; j < H; j += RN_THREADS) yr[j] = (xr[j] * inv) * w[j];
    }
}

// ---- host ----
torch::Tensor rmsnorm_forward(torch::Tensor x, torch::Tensor weight, double eps) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda(), "rmsnorm: tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous(), "rmsnorm: tensors must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat,
                "rmsnorm: tensors must be float32");
    TORCH_CHECK(x.dim() >= 1, "rmsnorm: x must have at least one dimension");
    const int64_t H = x.size(x.dim() - 1);
    TORCH_CHECK(weight.numel() == H, "rmsnorm: weight size mismatch");
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    const int64_t rows = x.numel() / H;
    TORCH_CHECK(rows <= 2147483647LL, "rmsnorm: too many rows");
    const float* xp = x.data_ptr<float>();
    const float* wp = weight.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const uintptr_t align =
        reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(wp) | reinterpret_cast<uintptr_t>(yp);
    const bool vec = (H % 4 == 0) && ((align & 15) == 0);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (vec) rmsnorm_kernel<true><<<(unsigned)rows, RN_THREADS, 0, stream>>>(xp, wp, yp, H, (float)eps);
    else rmsnorm_kernel<false><<<(unsigned)rows, RN_THREADS, 0, stream>>>(xp, wp, yp, H, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_rmsnorm",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["rmsnorm_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.eps = float(eps)
        self.weight = nn.Parameter(torch.rand(hidden) + 0.5)

    def forward(self, x):
        return _ext.rmsnorm_forward(x.contiguous(), self.weight.contiguous(), self.eps)
