"""Honest CUDA solution for tasks/depthwise-conv2d: depthwise KxK convolution (groups = channels), stride 1,
zero padding K // 2, with bias.

A 256-thread block computes a 32x16 output tile of one (image, channel) plane: it stages the (16+K-1) x (32+K-1)
input halo (zero-filled outside the image) and the KxK filter in shared memory, then each thread computes two
output rows. K is a template constant for 3, 5 and 7 (fully unrolled taps) with a runtime-K fallback. The bias
is added after the taps, as cuDNN does. Parameters live in a `conv` submodule named and initialised like
nn.Conv2d's, so the verifier's strict state_dict copy applies.
"""
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor depthwise_conv_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, int64_t pad);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define DW_TW 32
#define DW_TH 16
#define DW_THREADS 256

// grid (planes = N*C, tiles); dynamic shared memory: (DW_TH+K-1)*(DW_TW+K-1) + K*K floats
template <int KS>
__global__ void __launch_bounds__(DW_THREADS) depthwise_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                                              const float* __restrict__ bias, float* __restrict__ y,
                                                              int C, int H, int W, int Ho, int Wo, int k_rt, int pad,
                                                              int tiles_x) {
    extern __shared__ float smem[];
    const int K = KS > 0 ? KS : k_rt;
    const int PW = DW_TW + K - 1, PH = DW_TH + K - 1;
    float* patch = smem;
    float* wk = smem + PH * PW;
    const int64_t plane = blockIdx.x;
    const int c = (int)(plane % C);
    const int ox0 = (blockIdx.y % tiles_x) * DW_TW;
    const int oy0 = (blockIdx.y / tiles_x) * DW_TH;
    const float* __restrict__ xp = x + plane * (int64_t)H * W;

    for (int e = threadIdx.x; e < PH * PW; e += DW_THREADS) {
        const int py = e / PW, px = e - py * PW;
        const int gy = oy0 + py - pad, gx = ox0 + px - pad;
        patch[e] = (gy >= 0 && gy < H && gx >= 0 && gx < W) ? xp[(int64_t)gy * W + gx] : 0.0f;
    }
    for (int e = threadIdx.x; e < K * K; e += DW_THREADS) wk[e] = w[(int64_t)c * K * K + e];
    __syncthreads();

    const float b = bias[c];
    const int lx = threadIdx.x & 31, ly = threadIdx.x >> 5;
    float* __restrict__ yp = y + plane * (int64_t)Ho * Wo;
    for (int r = ly; r < DW_TH; r += DW_THREADS / 32) {
        const int oy = oy0 + r, ox = ox0 + lx;
        if (oy < Ho && ox < Wo) {
            float acc = 0.0f;
            if (KS > 0) {
#pragma unroll
                for (int ky = 0; ky < KS; ++ky)
#pragma unroll
                    for (int kx = 0; kx < KS; ++kx) acc = fmaf(patch[(r + ky) * PW + lx + kx], wk[ky * KS + kx], acc);
            } else {
                for (int ky = 0; ky < K; ++ky)
                    for (int kx = 0; kx < K; ++kx) acc = fmaf(patch[(r + ky) * PW + lx + kx], wk[ky * K + kx], acc);
            }
            yp[(int64_t)oy * Wo + ox] = acc + b;
        }
    }
}

template <int KS>
static void launch_depthwise(const float* x, const float* w, const float* b, float* y, int64_t planes, int C, int H,
                             int W, int Ho, int Wo, int K, int pad, cudaStream_t stream) {
    const int tiles_x = (Wo + DW_TW - 1) / DW_TW, tiles_y = (Ho + DW_TH - 1) / DW_TH;
    const size_t smem = (size_t)((DW_TH + K - 1) * (DW_TW + K - 1) + K * K) * sizeof(float);
    TORCH_CHECK(smem <= 48 * 1024, "depthwise: kernel too large for the shared-memory tile");
    TORCH_CHECK((int64_t)tiles_x * tiles_y <= 65535, "depthwise: image too large");
    const dim3 grid((unsigned)planes, (unsigned)(tiles_x * tiles_y));
    depthwise_kernel<KS><<<grid, DW_THREADS, smem, stream>>>(x, w, b, y, C, H, W, Ho, Wo, K, pad, tiles_x);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// ---- host ----
torch::Tensor depthwise_conv_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, int64_t pad) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "depthwise: tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "depthwise: need contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat &&
                    bias.scalar_type() == torch::kFloat,
                "depthwise: tensors must be float32");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "depthwise: x must be NCHW, weight (C,1,K,K)");
    const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    const int64_t K = weight.size(2);
    TORCH_CHECK(weight.size(0) == C && weight.size(1) == 1 && weight.size(3) == K, "depthwise: weight shape");
    TORCH_CHECK(bias.numel() == C, "depthwise: bias shape");
    TORCH_CHECK(K >= 1 && pad >= 0, "depthwise: bad kernel or padding");
    const int64_t Ho = H + 2 * pad - K + 1, Wo = W + 2 * pad - K + 1;
    TORCH_CHECK(Ho >= 1 && Wo >= 1, "depthwise: output would be empty");
    auto y = torch::empty({N, C, Ho, Wo}, x.options());
    if (y.numel() == 0) return y;
    const int64_t planes = N * C;
    TORCH_CHECK(planes < (1LL << 31) && H < (1LL << 30) && W < (1LL << 30), "depthwise: input too large");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const float* xp = x.data_ptr<float>();
    const float* wp = weight.data_ptr<float>();
    const float* bp = bias.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    if (K == 7) launch_depthwise<7>(xp, wp, bp, yp, planes, (int)C, (int)H, (int)W, (int)Ho, (int)Wo, 7, (int)pad, stream);
    else if (K == 5) launch_depthwise<5>(xp, wp, bp, yp, planes, (int)C, (int)H, (int)W, (int)Ho, (int)Wo, 5, (int)pad, stream);
    else if (K == 3) launch_depthwise<3>(xp, wp, bp, yp, planes, (int)C, (int)H, (int)W, (int)Ho, (int)Wo, 3, (int)pad, stream);
    else launch_depthwise<0>(xp, wp, bp, yp, planes, (int)C, (int)H, (int)W, (int)Ho, (int)Wo, (int)K, (int)pad, stream);
    return y;
}
"""

_ext = load_inline(
    name="km_depthwise_conv2d",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["depthwise_conv_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        self.padding = kernel_size // 2
        # same names, shapes and initialisation as the reference's grouped nn.Conv2d (`conv.weight`, `conv.bias`)
        self.conv = nn.Module()
        self.conv.weight = nn.Parameter(torch.empty(channels, 1, kernel_size, kernel_size))
        self.conv.bias = nn.Parameter(torch.empty(channels))
        nn.init.kaiming_uniform_(self.conv.weight, a=math.sqrt(5))
        fan_in = kernel_size * kernel_size
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        nn.init.uniform_(self.conv.bias, -bound, bound)

    def forward(self, x):
        return _ext.depthwise_conv_forward(
            x.contiguous(), self.conv.weight.contiguous(), self.conv.bias.contiguous(), self.padding
        )
