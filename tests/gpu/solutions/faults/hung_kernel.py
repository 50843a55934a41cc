# FAULT (gelu-tanh): before doing any work every thread spins on a volatile device flag that is zeroed and
# never set by anyone, so the kernel never finishes; forward() returns (launches are asynchronous) and the
# first synchronisation blocks forever.
# MUST BE CAUGHT AS: TIMEOUT (the worker kills the solution child's process group at its wall-clock limit; the
# worker and the other verdicts are unaffected).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor gelu_tanh_forward(torch::Tensor x);"

CUDA_SRC = r"""
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void gelu_wait_kernel(volatile int* flag, const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    while (*flag == 0) {  // nobody ever writes the flag
        __nanosleep(1000);
    }
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    }
}

// ---- host ----
torch::Tensor gelu_tanh_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "gelu_tanh: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "gelu_tanh: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "gelu_tanh: x must be float32");
    auto y = torch::empty_like(x);
    auto flag = torch::zeros({1}, x.options().dtype(torch::kInt));
    const int64_t n = x.numel();
    int64_t blocks = (n + 255) / 256;
    if (blocks > 8192) blocks = 8192;
    if (blocks < 1) blocks = 1;
    gelu_wait_kernel<<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        flag.data_ptr<int>(), x.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

_ext = load_inline(
    name="km_fault_hung_kernel",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["gelu_tanh_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.gelu_tanh_forward(x.contiguous())
