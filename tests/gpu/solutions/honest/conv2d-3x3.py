"""Honest CUDA solution for tasks/conv2d-3x3: 3x3 convolution, stride 1, zero padding 1, with bias (NCHW fp32).

Direct convolution tiled in shared memory: a 256-thread block computes a 16x16 output tile for 16 output
channels of one image. Per step of 8 input channels it stages the 18x18 input halo (zero-filled at the borders
and past the last channel) and the 8x9x16 weights ([ic][tap][oc], so a thread reads 16 output-channel weights as
four float4 broadcasts); each thread then does 8*9*16 FMAs into 16 register accumulators. Everything is
bounds-checked, so odd shapes work (3 x 67 -> 45 channels, 37 x 53). Parameters live in a `conv` submodule
named and initialised like nn.Conv2d's, so the verifier's strict state_dict copy applies.
"""
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor conv3x3_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define CV_TW 16
#define CV_TH 16
#define CV_OC 16
#define CV_IC 8
#define CV_PW (CV_TW + 2)
#define CV_PH (CV_TH + 2)
#define CV_THREADS 256

__global__ void __launch_bounds__(CV_THREADS) conv3x3_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                                            const float* __restrict__ bias, float* __restrict__ y,
                                                            int IC, int OC, int H, int W, int tiles_x) {
    __shared__ float s_in[CV_IC][CV_PH][CV_PW];
    __shared__ __align__(16) float s_w[CV_IC][9][CV_OC];
    const int tx = threadIdx.x % CV_TW, ty = threadIdx.x / CV_TW;
    const int x0 = (blockIdx.x % tiles_x) * CV_TW;
    const int y0 = (blockIdx.x / tiles_x) * CV_TH;
    const int oc0 = blockIdx.y * CV_OC;
    const int64_t n = blockIdx.z;

    float acc[CV_OC];
#pragma unroll
    for (int o = 0; o < CV_OC; ++o) acc[o] = 0.0f;

    for (int ic0 = 0; ic0 < IC; ic0 += CV_IC) {
        for (int e = threadIdx.x; e < CV_IC * CV_PH * CV_PW; e += CV_THREADS) {
            const int icl = e / (CV_PH * CV_PW);
            const int rem = e - icl * (CV_PH * CV_PW);
            const int py = rem / CV_PW, px = rem - py * CV_PW;
            const int ic = ic0 + icl, gy = y0 + py - 1, gx = x0 + px - 1;
            float v = 0.0f;
            if (ic < IC && gy >= 0 && gy < H && gx >= 0 && gx < W) v = x[((n * IC + ic) * H + gy) * W + gx];
            s_in[icl][py][px] = v;
        }
        for (int e = threadIdx.x; e < CV_OC * CV_IC * 9; e += CV_THREADS) {
            const int ocl = e / (CV_IC * 9);
            const int rem = e - ocl * (CV_IC * 9);
            const int icl = rem / 9, k = rem - icl * 9;
            const int oc = oc0 + ocl, ic = ic0 + icl;
            s_w[icl][k][ocl] = (oc < OC && ic < IC) ? w[((int64_t)oc * IC + ic) * 9 + k] : 0.0f;
        }
        __syncthreads();
#pragma unroll 2
        for (int icl = 0; icl < CV_IC; ++icl) {
            float in[9];
#pragma unroll
            for (int dy = 0; dy < 3; ++dy)
#pragma unroll
                for (int dx = 0; dx < 3; ++dx) in[dy * 3 + dx] = s_in[icl][ty + dy][tx + dx];
#pragma unroll
            for (int k = 0; k < 9; ++k) {
                const float4* wp = reinterpret_cast<const float4*>(&s_w[icl][k][0]);
#pragma unroll
                for (int q = 0; q < CV_OC / 4; ++q) {
                    const float4 wv = wp[q];
                    acc[q * 4 + 0] = fmaf(in[k], wv.x, acc[q * 4 + 0]);
                    acc[q * 4 + 1] = fmaf(in[k], wv.y, acc[q * 4 + 1]);
                    acc[q * 4 + 2] = fmaf(in[k], wv.z, acc[q * 4 + 2]);
                    acc[q * 4 + 3] = fmaf(in[k], wv.w, acc[q * 4 + 3]);
                }
            }
        }
        __syncthreads();
    }

    const int ox = x0 + tx, oy = y0 + ty;
    if (ox < W && oy < H) {
#pragma unroll
        for (int o = 0; o < CV_OC; ++o) {
            const int oc = oc0 + o;
            if (oc < OC) y[((n * OC + oc) * H + oy) * W + ox] = acc[o] + bias[oc];
        }
    }
}

// ---- host ----
torch::Tensor conv3x3_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "conv3x3: tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "conv3x3: need contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat &&
                    bias.scalar_type() == torch::kFloat,
                "conv3x3: tensors must be float32");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "conv3x3: x must be NCHW and weight OIHW");
    const int64_t N = x.size(0), IC = x.size(1), H = x.size(2), W = x.size(3), OC = weight.size(0);
    TORCH_CHECK(weight.size(1) == IC && weight.size(2) == 3 && weight.size(3) == 3, "conv3x3: weight shape");
    TORCH_CHECK(bias.numel() == OC, "conv3x3: bias shape");
    auto y = torch::empty({N, OC, H, W}, x.options());
    if (y.numel() == 0) return y;
    const int64_t tiles_x = (W + CV_TW - 1) / CV_TW, tiles_y = (H + CV_TH - 1) / CV_TH;
    const int64_t oc_groups = (OC + CV_OC - 1) / CV_OC;
    TORCH_CHECK(tiles_x * tiles_y < (1LL << 31) && oc_groups <= 65535 && N <= 65535, "conv3x3: grid too large");
    const dim3 grid((unsigned)(tiles_x * tiles_y), (unsigned)oc_groups, (unsigned)N);
    conv3x3_kernel<<<grid, CV_THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(), (int)IC,
        (int)OC, (int)H, (int)W, (int)tiles_x);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_conv2d_3x3",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["conv3x3_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        # same names, shapes and initialisation as the reference's nn.Conv2d (`conv.weight`, `conv.bias`)
        self.conv = nn.Module()
        self.conv.weight = nn.Parameter(torch.empty(out_channels, in_channels, 3, 3))
        self.conv.bias = nn.Parameter(torch.empty(out_channels))
        nn.init.kaiming_uniform_(self.conv.weight, a=math.sqrt(5))
        fan_in = in_channels * 9
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        nn.init.uniform_(self.conv.bias, -bound, bound)

    def forward(self, x):
        return _ext.conv3x3_forward(x.contiguous(), self.conv.weight.contiguous(), self.conv.bias.contiguous())
