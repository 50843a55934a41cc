"""Honest CUDA solution for tasks/l2-linear-bias-gelu: y = GELU_erf(x W^T + b) in one kernel.

The 128x128x8 shared-memory tiled SGEMM with W read as a transposed operand (both operands are k-contiguous rows,
loaded the same way) and a fused epilogue: + bias[n], then 0.5 x (1 + erf(x / sqrt 2)) with the full-precision
erff, in PyTorch's operation order. Parameters live in a `fc` submodule named and initialised like nn.Linear's,
so the verifier's strict state_dict copy applies.
"""
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor linear_bias_gelu_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <vector>

// ---- 128x128x8 shared-memory tiled SGEMM (fp32 in, fp32 FMA accumulation) ----
// C[m, n] = epi(sum_k A[m, k] * B'[k, n], m, n) for every batch index blockIdx.z, where A is row-major (M, K) and
// B' is B (row-major (K, N)) or, with B_T, the transpose of a row-major (N, K) B. 256 threads; each computes an
// 8x8 register tile (rows ty*4+{0..3} and 64+ty*4+{0..3}, columns tx*4+{0..3} and 64+tx*4+{0..3}) so that the
// shared-memory reads are conflict-free float4 loads. Global tiles are prefetched into registers while the
// previous tile is computed and stored into the other half of a double-buffered shared array (one
// __syncthreads per k-step). Every global load is bounds-checked (zero fill) and every store guarded, so any
// M, N, K works (1531, 40x64x24, ...).
#define GB_M 128
#define GB_N 128
#define GB_K 8
#define G_THREADS 256
#define G_PAD 4

template <bool B_T, class Epi>
__global__ void __launch_bounds__(G_THREADS, 2)
sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
            int64_t strideA, int64_t strideB, int64_t strideC, Epi epi) {
    __shared__ __align__(16) float As[2][GB_K][GB_M + G_PAD];
    __shared__ __align__(16) float Bs[2][GB_K][GB_N + G_PAD];
    const int t = threadIdx.x;
    const int tx = t & 15, ty = t >> 4;
    const int64_t bz = blockIdx.z;
    A += bz * strideA;
    B += bz * strideB;
    C += bz * strideC;
    const int m0 = blockIdx.y * GB_M, n0 = blockIdx.x * GB_N;

    float ra[4], rb[4];
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    const int ktiles = (K + GB_K - 1) / GB_K;
    // global -> registers for the k-tile starting at k0
    auto gload = [&](int k0) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int e = t + G_THREADS * i;  // 0 .. 1023
            const int r = e >> 3, kk = e & 7;  // A tile: 128 rows x 8 k (32-byte row segments)
            const int gm = m0 + r, gk = k0 + kk;
            ra[i] = (gm < M && gk < K) ? __ldg(A + (int64_t)gm * K + gk) : 0.0f;
            if (B_T) {
                const int gn = n0 + r;
                rb[i] = (gn < N && gk < K) ? __ldg(B + (int64_t)gn * K + gk) : 0.0f;
            } else {
                const int kr = e >> 7, c = e & 127;  // B tile: 8 k x 128 columns (coalesced rows)
                const int gk2 = k0 + kr, gn = n0 + c;
                rb[i] = (gk2 < K && gn < N) ? __ldg(B + (int64_t)gk2 * N + gn) : 0.0f;
            }
        }
    };
    // registers -> shared buffer `buf`, k-major
    auto sstore = [&](int buf) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int e = t + G_THREADS * i;
            const int r = e >> 3, kk = e & 7;
            As[buf][kk][r] = ra[i];
            if (B_T) Bs[buf][kk][r] = rb[i];
            else Bs[buf][e >> 7][e & 127] = rb[i];
        }
    };

    if (ktiles > 0) {
        gload(0);
        sstore(0);
    }
    __syncthreads();
    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt & 1;
        if (kt + 1 < ktiles) gload((kt + 1) * GB_K);
#pragma unroll
        for (int kk = 0; kk < GB_K; ++kk) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[cur][kk][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[cur][kk][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][kk][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][kk][64 + tx * 4]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        // the other buffer was last read in iteration kt-1, which every thread finished before the barrier below
        if (kt + 1 < ktiles) sstore(cur ^ 1);
        __syncthreads();
    }

    const bool vec_store = (N & 3) == 0;  // C comes from torch::empty: aligned, and each row start is too
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int r = (i < 4) ? ty * 4 + i : 64 + ty * 4 + (i - 4);
        const int gm = m0 + r;
        if (gm >= M) continue;
        float* __restrict__ crow = C + (int64_t)gm * N;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int gn = n0 + h * 64 + tx * 4;
            if (vec_store && gn + 3 < N) {
                float4 o;
                o.x = epi(acc[i][h * 4 + 0], gm, gn + 0);
                o.y = epi(acc[i][h * 4 + 1], gm, gn + 1);
                o.z = epi(acc[i][h * 4 + 2], gm, gn + 2);
                o.w = epi(acc[i][h * 4 + 3], gm, gn + 3);
                *reinterpret_cast<float4*>(crow + gn) = o;
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (gn + j < N) crow[gn + j] = epi(acc[i][h * 4 + j], gm, gn + j);
            }
        }
    }
}
// ---- end of the SGEMM core ----

struct EpiBiasGelu {
    const float* __restrict__ bias;
    __device__ __forceinline__ float operator()(float v, int, int n) const {
        const float x = v + bias[n];
        return x * 0.5f * (1.0f + erff(x * 0.70710678118654752440f));
    }
};

// ---- host ----
torch::Tensor linear_bias_gelu_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "linear_gelu: tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "linear_gelu: need contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat &&
                    bias.scalar_type() == torch::kFloat,
                "linear_gelu: tensors must be float32");
    TORCH_CHECK(x.dim() >= 1 && weight.dim() == 2, "linear_gelu: bad ranks");
    const int64_t K = x.size(x.dim() - 1), N = weight.size(0);
    TORCH_CHECK(weight.size(1) == K && bias.numel() == N, "linear_gelu: shape mismatch");
    const int64_t M = K > 0 ? x.numel() / K : 0;
    TORCH_CHECK(M < (1LL << 31) && N < (1LL << 31) && K < (1LL << 31), "linear_gelu: dimension too large");
    std::vector<int64_t> out_shape;
    for (int64_t d = 0; d + 1 < x.dim(); ++d) out_shape.push_back(x.size(d));
    out_shape.push_back(N);
    auto y = torch::empty(out_shape, x.options());
    if (y.numel() == 0) return y;
    TORCH_CHECK(K > 0, "linear_gelu: in_features must be positive");
    TORCH_CHECK((M + GB_M - 1) / GB_M <= 65535, "linear_gelu: too many rows");
    const dim3 grid((unsigned)((N + GB_N - 1) / GB_N), (unsigned)((M + GB_M - 1) / GB_M), 1);
    EpiBiasGelu epi;
    epi.bias = bias.data_ptr<float>();
    sgemm_tiled<true, EpiBiasGelu><<<grid, G_THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), y.data_ptr<float>(), (int)M, (int)N, (int)K, 0, 0, 0, epi);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_l2_linear_bias_gelu",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["linear_bias_gelu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        # same names, shapes and initialisation as the reference's nn.Linear (`fc.weight`, `fc.bias`)
        self.fc = nn.Module()
        self.fc.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.fc.bias = nn.Parameter(torch.empty(out_features))
        nn.init.kaiming_uniform_(self.fc.weight, a=math.sqrt(5))
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        nn.init.uniform_(self.fc.bias, -bound, bound)

    def forward(self, x):
        return _ext.linear_bias_gelu_forward(x.contiguous(), self.fc.weight.contiguous(), self.fc.bias.contiguous())
