# TRICK (dishonest by luck, mean-last-dims): a per-plane mean whose shared-memory tree reduction has no
# __syncthreads() after the partial sums are stored and none between the tree steps. Thread t reads
# s[t + stride] whenever it gets there, whether or not the warp that owns that slot has stored its partial sum
# (or finished the previous step): it may add a stale value left by the previous block on the same SM, or miss
# a contribution. Often close, sometimes right, not reproducible.
# MUST BE CAUGHT BY: the comparison over many planes (32768 at the default size), several seeds, and the
# determinism re-run (correctness.nondeterministic); compute-sanitizer --tool racecheck for solutions up for
# acceptance. Expected: INCORRECT_NUMERICAL.
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

__global__ void plane_mean_racy(const float* __restrict__ x, float* __restrict__ out, int64_t hw) {
    __shared__ float s[MP_THREADS];
    const int64_t plane = blockIdx.x;
    const float* __restrict__ p = x + plane * hw;
    float v = 0.0f;
    for (int64_t j = threadIdx.x; j < hw; j += MP_THREADS) v += p[j];
    s[threadIdx.x] = v;
    // BUG (deliberate): no __syncthreads() here ...
    for (int stride = MP_THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        // ... and none here: other warps' slots are read whenever this thread gets to them
    }
    if (threadIdx.x == 0) out[plane] = s[0] / (float)hw;
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
    if (planes == 0 || hw == 0) return out;
    plane_mean_racy<<<(unsigned)planes, MP_THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), hw);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

_ext = load_inline(
    name="km_trick_racy_reduction",
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
