"""Honest CUDA solution for tasks/maxpool2d: 3x3 max pooling, stride 2, padding 1 (floor mode), NCHW fp32.

One thread per output element (grid-stride, consecutive threads -> consecutive output columns): the window is
clipped to the image (padding never wins, as in PyTorch) and NaN propagates like PyTorch's max_pool2d.
Output size (H - 1) // 2 + 1 per spatial dimension.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor maxpool_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void maxpool3x3s2p1_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t total, int H, int W,
                                      int Ho, int Wo) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
        const int ox = (int)(idx % Wo);
        const int64_t t = idx / Wo;
        const int oy = (int)(t % Ho);
        const int64_t plane = t / Ho;
        const float* __restrict__ xp = x + plane * (int64_t)H * W;
        const int hs = oy * 2 - 1, ws = ox * 2 - 1;
        float m = -INFINITY;
#pragma unroll
        for (int dy = 0; dy < 3; ++dy) {
            const int h = hs + dy;
            if (h < 0 || h >= H) continue;
#pragma unroll
            for (int dx = 0; dx < 3; ++dx) {
                const int w = ws + dx;
                if (w < 0 || w >= W) continue;
                const float v = xp[(int64_t)h * W + w];
                if (v > m || v != v) m = v;
            }
        }
        y[idx] = m;
    }
}

// ---- host ----
torch::Tensor maxpool_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "maxpool: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "maxpool: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "maxpool: x must be float32");
    TORCH_CHECK(x.dim() == 4, "maxpool: x must be NCHW");
    const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    TORCH_CHECK(H >= 1 && W >= 1 && H < (1LL << 30) && W < (1LL << 30), "maxpool: bad spatial size");
    const int64_t Ho = (H + 2 - 3) / 2 + 1, Wo = (W + 2 - 3) / 2 + 1;
    auto y = torch::empty({N, C, Ho, Wo}, x.options());
    const int64_t total = y.numel();
    if (total == 0) return y;
    const int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65536) blocks = 65536;
    maxpool3x3s2p1_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), total, (int)H, (int)W, (int)Ho, (int)Wo);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_maxpool2d",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["maxpool_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.maxpool_forward(x.contiguous())
