"""Honest CUDA solution for tasks/cumsum: inclusive prefix sum along the last dimension (dim 1 of a 2-D input).

Rows are cut into chunks of 2048 (256 threads x 8 items). A row of one chunk is scanned by one block directly.
Longer rows use three kernels: (1) one block per chunk sums it; (2) one block per row turns the chunk sums into
exclusive chunk offsets in place (a block-wide scan with a running carry); (3) one block per chunk loads it
coalesced into padded shared memory, each thread scans its 8 consecutive items, a warp-shuffle block scan
combines the thread totals, and offset + prefix is written back coalesced. Deterministic, no atomics, no
inter-block waiting. The one-long-row configuration (67M elements) uses 32768 chunks in parallel.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor cumsum_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define CS_TPB 256
#define CS_IPT 8
#define CS_CHUNK (CS_TPB * CS_IPT)
#define CS_PIDX(i) ((i) + ((i) >> 5))

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

__device__ __forceinline__ float warp_incl_scan(float v, int lane) {
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const float n = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += n;
    }
    return v;
}

// Exclusive scan of one value per thread over the block (blockDim.x a multiple of 32, at most 1024); *total gets
// the block's sum. ws: 32 floats. Ends with a barrier so ws can be reused at once.
__device__ __forceinline__ float block_excl_scan(float v, float* ws, float* total) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    const float inc = warp_incl_scan(v, lane);
    float ex = __shfl_up_sync(0xffffffffu, inc, 1);
    if (lane == 0) ex = 0.0f;
    if (lane == 31) ws[wid] = inc;
    __syncthreads();
    if (wid == 0) {
        float s = lane < nw ? ws[lane] : 0.0f;
        s = warp_incl_scan(s, lane);
        ws[lane] = s;  // inclusive prefix of the warp totals
    }
    __syncthreads();
    const float wpre = wid > 0 ? ws[wid - 1] : 0.0f;
    *total = ws[nw - 1];
    __syncthreads();
    return wpre + ex;
}

// (1) sums[b] = sum of chunk b (b = row * nchunks + c)
__global__ void __launch_bounds__(CS_TPB) cumsum_chunk_sums(const float* __restrict__ x, float* __restrict__ sums,
                                                           int64_t L, int nchunks) {
    __shared__ float sh[33];
    const int64_t b = blockIdx.x;
    const int64_t row = b / nchunks;
    const int64_t c = b - row * nchunks;
    const int64_t start = c * CS_CHUNK;
    const int len = (int)((L - start) < CS_CHUNK ? (L - start) : CS_CHUNK);
    const float* __restrict__ p = x + row * L + start;
    float s = 0.0f;
    for (int i = threadIdx.x; i < len; i += CS_TPB) s += p[i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) sums[b] = s;
}

// (2) one block per row: sums[row, :] -> exclusive prefix of the chunk sums, in place
__global__ void __launch_bounds__(CS_TPB) cumsum_chunk_offsets(float* __restrict__ sums, int nchunks) {
    __shared__ float ws[32];
    float* __restrict__ p = sums + (int64_t)blockIdx.x * nchunks;
    float carry = 0.0f;
    for (int base = 0; base < nchunks; base += CS_TPB) {
        const int i = base + threadIdx.x;
        const float v = i < nchunks ? p[i] : 0.0f;
        float tot;
        const float ex = block_excl_scan(v, ws, &tot);
        if (i < nchunks) p[i] = carry + ex;
        carry += tot;
    }
}

// (3) scan chunk b and add its offset (offsets == nullptr: rows of one chunk)
__global__ void __launch_bounds__(CS_TPB) cumsum_chunk_scan(const float* __restrict__ x,
                                                           const float* __restrict__ offsets, float* __restrict__ y,
                                                           int64_t L, int nchunks) {
    __shared__ float buf[CS_CHUNK + CS_CHUNK / 32];
    __shared__ float ws[32];
    const int64_t b = blockIdx.x;
    const int64_t row = b / nchunks;
    const int64_t c = b - row * nchunks;
    const int64_t start = c * CS_CHUNK;
    const int len = (int)((L - start) < CS_CHUNK ? (L - start) : CS_CHUNK);
    const float* __restrict__ p = x + row * L + start;
    float* __restrict__ q = y + row * L + start;
#pragma unroll
    for (int j = 0; j < CS_IPT; ++j) {
        const int i = threadIdx.x + j * CS_TPB;
        buf[CS_PIDX(i)] = i < len ? p[i] : 0.0f;
    }
    __syncthreads();
    float v[CS_IPT];
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CS_IPT; ++j) {
        s += buf[CS_PIDX(threadIdx.x * CS_IPT + j)];
        v[j] = s;
    }
    float tot;
    const float ex = block_excl_scan(s, ws, &tot);
    const float off = (offsets != nullptr ? offsets[b] : 0.0f) + ex;
#pragma unroll
    for (int j = 0; j < CS_IPT; ++j) buf[CS_PIDX(threadIdx.x * CS_IPT + j)] = off + v[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < CS_IPT; ++j) {
        const int i = threadIdx.x + j * CS_TPB;
        if (i < len) q[i] = buf[CS_PIDX(i)];
    }
}

// ---- host ----
torch::Tensor cumsum_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "cumsum: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "cumsum: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "cumsum: x must be float32");
    TORCH_CHECK(x.dim() >= 1, "cumsum: x must have at least one dimension");
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    const int64_t L = x.size(x.dim() - 1);
    const int64_t rows = x.numel() / L;
    const int64_t nchunks = (L + CS_CHUNK - 1) / CS_CHUNK;
    TORCH_CHECK(rows * nchunks < (1LL << 31), "cumsum: input too large");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    if (nchunks == 1) {
        cumsum_chunk_scan<<<(unsigned)rows, CS_TPB, 0, stream>>>(xp, nullptr, yp, L, 1);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
        return y;
    }
    auto sums = torch::empty({rows * nchunks}, x.options());
    float* sp = sums.data_ptr<float>();
    cumsum_chunk_sums<<<(unsigned)(rows * nchunks), CS_TPB, 0, stream>>>(xp, sp, L, (int)nchunks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    cumsum_chunk_offsets<<<(unsigned)rows, CS_TPB, 0, stream>>>(sp, (int)nchunks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    cumsum_chunk_scan<<<(unsigned)(rows * nchunks), CS_TPB, 0, stream>>>(xp, sp, yp, L, (int)nchunks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_cumsum",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["cumsum_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim  # the task scans dim 1 of a 2-D input: the last dimension

    def forward(self, x):
        return _ext.cumsum_forward(x.contiguous())
