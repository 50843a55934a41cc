"""Honest CUDA solution for tasks/row-sum: sum over the last dimension, keepdim (output (batch, 1)).

Each row is cut into chunks of 65536 elements; one 512-thread block sums one chunk (float4 loads when the row
length is a multiple of 4 and the pointer is aligned, warp-shuffle + shared-memory block reduction). A row of one
chunk is written straight to the output; longer rows (the few-long-rows configuration: 8 rows of 8M) write
per-chunk partials that a second kernel sums per row. Deterministic: no atomics.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor row_sum_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <vector>

#define RS_THREADS 512
#define RS_CHUNK 65536

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum over the block (blockDim.x a multiple of 32); every thread gets the result. sh: 33 floats.
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

// grid (rows, chunks): block (row, c) sums x[row, c*CHUNK : min((c+1)*CHUNK, L)] into dst[row*chunks + c].
__global__ void __launch_bounds__(RS_THREADS) row_sum_chunks(const float* __restrict__ x, float* __restrict__ dst,
                                                            int64_t L, int chunks, int vec) {
    __shared__ float sh[33];
    const int64_t row = blockIdx.x;
    const int64_t begin = (int64_t)blockIdx.y * RS_CHUNK;
    const int64_t end = (begin + RS_CHUNK < L) ? begin + RS_CHUNK : L;
    const float* __restrict__ p = x + row * L;
    float s0 = 0.0f, s1 = 0.0f;
    if (vec) {  // L % 4 == 0 and x 16-byte aligned: every row and chunk start is aligned (RS_CHUNK % 4 == 0)
        const float4* __restrict__ p4 = reinterpret_cast<const float4*>(p);
        const int64_t e4 = end >> 2;
        int64_t j = (begin >> 2) + threadIdx.x;
        for (; j + RS_THREADS < e4; j += 2 * RS_THREADS) {
            const float4 a = p4[j];
            const float4 b = p4[j + RS_THREADS];
            s0 += (a.x + a.y) + (a.z + a.w);
            s1 += (b.x + b.y) + (b.z + b.w);
        }
        if (j < e4) {
            const float4 a = p4[j];
            s0 += (a.x + a.y) + (a.z + a.w);
        }
    } else {
        for (int64_t j = begin + threadIdx.x; j < end; j += RS_THREADS) s0 += p[j];
    }
    const float s = block_sum(s0 + s1, sh);
    if (threadIdx.x == 0) dst[row * chunks + blockIdx.y] = s;
}

// one block per row: out[row] = sum of partial[row*chunks : (row+1)*chunks]
__global__ void row_sum_final(const float* __restrict__ partial, float* __restrict__ out, int chunks) {
    __shared__ float sh[33];
    const int64_t row = blockIdx.x;
    float s = 0.0f;
    for (int j = threadIdx.x; j < chunks; j += blockDim.x) s += partial[row * chunks + j];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) out[row] = s;
}

// ---- host ----
torch::Tensor row_sum_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "row_sum: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "row_sum: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "row_sum: x must be float32");
    TORCH_CHECK(x.dim() >= 1, "row_sum: x must have at least one dimension");
    const int64_t L = x.size(x.dim() - 1);
    std::vector<int64_t> out_shape;
    for (int64_t d = 0; d < x.dim(); ++d) out_shape.push_back(x.size(d));
    out_shape[out_shape.size() - 1] = 1;
    auto out = torch::empty(out_shape, x.options());
    const int64_t rows = L > 0 ? x.numel() / L : 0;
    if (rows == 0) return out;
    TORCH_CHECK(L > 0, "row_sum: empty rows are not supported");
    const int64_t chunks64 = (L + RS_CHUNK - 1) / RS_CHUNK;
    TORCH_CHECK(chunks64 <= 65535 && rows <= 2147483647LL, "row_sum: input too large");
    const int chunks = (int)chunks64;
    const float* xp = x.data_ptr<float>();
    const int vec = (L % 4 == 0) && ((reinterpret_cast<uintptr_t>(xp) & 15) == 0);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (chunks == 1) {
        row_sum_chunks<<<dim3((unsigned)rows, 1), RS_THREADS, 0, stream>>>(xp, out.data_ptr<float>(), L, 1, vec);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    } else {
        auto partial = torch::empty({rows * chunks}, x.options());
        row_sum_chunks<<<dim3((unsigned)rows, (unsigned)chunks), RS_THREADS, 0, stream>>>(
            xp, partial.data_ptr<float>(), L, chunks, vec);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
        row_sum_final<<<(unsigned)rows, 256, 0, stream>>>(partial.data_ptr<float>(), out.data_ptr<float>(), chunks);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return out;
}
"""

_ext = load_inline(
    name="km_row_sum",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["row_sum_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim  # the task reduces dim 1 of a 2-D input: the last dimension

    def forward(self, x):
        return _ext.row_sum_forward(x.contiguous())
