# FAULT (silu): the kernel writes every result 2^40 floats (4 TiB) past the output pointer, far outside any
# allocation. The launch itself succeeds; the fault (cudaErrorIllegalAddress, "an illegal memory access was
# encountered") surfaces at the next synchronisation and leaves the CUDA context unusable.
# MUST BE CAUGHT AS: RUNTIME_ERROR, ending the solution's child process only (never the worker pool).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor silu_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define FAR_AWAY (1LL << 40)  // elements past the end: ~4 TiB, unmapped

__global__ void silu_far_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i + FAR_AWAY] = v / (1.0f + expf(-v));
    }
}

// ---- host ----
torch::Tensor silu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "silu: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "silu: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "silu: x must be float32");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    int64_t blocks = (n + 255) / 256;
    if (blocks > 8192) blocks = 8192;
    silu_far_kernel<<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(),
                                                                                   y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_fault_illegal_address",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["silu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.silu_forward(x.contiguous())
