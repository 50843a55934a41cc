"""Honest CUDA solution for tasks/softmax-rows: softmax over the last dimension.

One 512-thread block per row, two passes over the row: (1) an online max/sum-of-exponentials per thread
(rescaling the running sum when the maximum grows), merged across the warp with shuffles and across warps in
shared memory; (2) y = exp(x - max) / sum. float4 loads/stores when the row length is a multiple of 4 and the
pointers are aligned (dim = 16384, 256), scalar otherwise (dim = 50257).
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor softmax_rows_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define SM_THREADS 512

// running (max, sum of exp(x - max)) of one more element
__device__ __forceinline__ void ms_add(float& m, float& s, float v) {
    if (v > m) {
        s = s * expf(m - v) + 1.0f;
        m = v;
    } else if (v != -INFINITY) {
        s += expf(v - m);
    }
}

// merge two (max, sum) pairs; a pair with max = -inf holds nothing
__device__ __forceinline__ void ms_merge(float& m, float& s, float m2, float s2) {
    if (m2 == -INFINITY) return;
    if (m == -INFINITY) {
        m = m2;
        s = s2;
        return;
    }
    if (m2 > m) {
        s = s * expf(m - m2) + s2;
        m = m2;
    } else {
        s = s + s2 * expf(m2 - m);
    }
}

// every thread ends with the block's (max, sum); shm, shs: 33 floats each
__device__ __forceinline__ void block_ms(float& m, float& s, float* shm, float* shs) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        ms_merge(m, s, m2, s2);
    }
    if (lane == 0) {
        shm[wid] = m;
        shs[wid] = s;
    }
    __syncthreads();
    if (wid == 0) {
        m = lane < nw ? shm[lane] : -INFINITY;
        s = lane < nw ? shs[lane] : 0.0f;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
            const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
            ms_merge(m, s, m2, s2);
        }
        if (lane == 0) {
            shm[32] = m;
            shs[32] = s;
        }
    }
    __syncthreads();
    m = shm[32];
    s = shs[32];
}

template <bool VEC>
__global__ void __launch_bounds__(SM_THREADS) softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y,
                                                                 int64_t D) {
    __shared__ float shm[33], shs[33];
    const int64_t row = blockIdx.x;
    const float* __restrict__ xr = x + row * D;
    float* __restrict__ yr = y + row * D;
    float m = -INFINITY, s = 0.0f;
    if (VEC) {
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
        const int64_t n4 = D >> 2;
        for (int64_t j = threadIdx.x; j < n4; j += SM_THREADS) {
            const float4 v = x4[j];
            ms_add(m, s, v.x);
            ms_add(m, s, v.y);
            ms_add(m, s, v.z);
            ms_add(m, s, v.w);
        }
    } else {
        for (int64_t j = threadIdx.x; j < D; j += SM_THREADS) ms_add(m, s, xr[j]);
    }
    block_ms(m, s, shm, shs);
    if (VEC) {
        const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
        float4* __restrict__ y4 = reinterpret_cast<float4*>(yr);
        const int64_t n4 = D >> 2;
        for (int64_t j = threadIdx.x; j < n4; j += SM_THREADS) {
            float4 v = x4[j];
            v.x = expf(v.x - m) / s;
            v.y = expf(v.y - m) / s;
            v.z = expf(v.z - m) / s;
            v.w = expf(v.w - m) / s;
            y4[j] = v;
        }
    } else {
        for (int64_t j = threadIdx.x; j < D; j += SM_THREADS) yr[j] = expf(xr[j] - m) / s;
    }
}

// ---- host ----
torch::Tensor softmax_rows_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "softmax_rows: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "softmax_rows: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "softmax_rows: x must be float32");
    TORCH_CHECK(x.dim() >= 1, "softmax_rows: x must have at least one dimension");
    auto y = torch::empty_like(x);
    const int64_t D = x.size(x.dim() - 1);
    if (x.numel() == 0) return y;
    const int64_t rows = x.numel() / D;
    TORCH_CHECK(rows <= 2147483647LL, "softmax_rows: too many rows");
    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const bool vec = (D % 4 == 0) && (((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (vec) softmax_rows_kernel<true><<<(unsigned)rows, SM_THREADS, 0, stream>>>(xp, yp, D);
    else softmax_rows_kernel<false><<<(unsigned)rows, SM_THREADS, 0, stream>>>(xp, yp, D);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_softmax_rows",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["softmax_rows_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.softmax_rows_forward(x.contiguous())
