"""Honest CUDA solution for tasks/mean-last-dims: torch.mean(x, dim=(2, 3)) for an NCHW tensor.

One 256-thread block per (n, c) plane: float4 loads when H*W is a multiple of 4 and the pointer is aligned,
warp-shuffle + shared-memory block sum, then one division by H*W.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor mean_last_dims_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <vector>

#define MP_THREADS 256

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

__global__ void __launch_bounds__(MP_THREADS) plane_mean_kernel(const float* __restrict__ x, float* __restrict__ out,
                                                               int64_t hw, int vec) {
    __shared__ float sh[33];
    const int64_t plane = blockIdx.x;
    const float* __restrict__ p = x + plane * hw;
    float s = 0.0f;
    if (vec) {
        const float4* __restrict__ p4 = reinterpret_cast<const float4*>(p);
        const int64_t n4 = hw >> 2;
        for (int64_t j = threadIdx.x; j < n4; j += MP_THREADS) {
            const float4 a = p4[j];
            s += (a.x + a.y) + (a.z + a.w);
        }
    } else {
        for (int64_t j = threadIdx.x; j < hw; j += MP_THREADS) s += p[j];
    }
    s = block_sum(s, sh);
    if (threadIdx.x == 0) out[plane] = s / (float)hw;
}

// ---- host ----
torch::Tensor mean_last_dims_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "mean_last_dims: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "mean_last_dims: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "mean_last_dims: x must be float32");
    TORCH_CHECK(x.dim() >= 2, "mean_last_dims: x needs two trailing dimensions");
    const int64_t hw = x.size(x.dim() - 1) * x.size(x.dim() - 2);
    std::vector<int64_t> out_shape;
    for (int64_t d = 0; d + 2 < x.dim(); ++d) out_shape.push_back(x.size(d));
    auto out = torch::empty(out_shape, x.options());
    const int64_t planes = out.numel();
    if (planes == 0) return out;
    TORCH_CHECK(hw > 0, "mean_last_dims: empty planes are not supported");
    TORCH_CHECK(planes <= 2147483647LL, "mean_last_dims: too many planes");
    const float* xp = x.data_ptr<float>();
    const int vec = (hw % 4 == 0) && ((reinterpret_cast<uintptr_t>(xp) & 15) == 0);
    plane_mean_kernel<<<(unsigned)planes, MP_THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        xp, out.data_ptr<float>(), hw, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

_ext = load_inline(
    name="km_mean_last_dims",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["mean_last_dims_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.mean_last_dims_forward(x.contiguous())
