import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
#include <cublas_v2.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void bias_relu(float* y, const float* b, int n, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(y[i] + b[i % cols], 0.0f);
}

torch::Tensor linear_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    auto y = torch::empty({x.size(0), w.size(0)}, x.options());
    cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
    (void)handle;  // the GEMM itself is elided in this fixture
    int n = y.numel();
    bias_relu<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        y.data_ptr<float>(), b.data_ptr<float>(), n, (int)w.size(0));
    return y;
}
"""

mod = load_inline(name="linear_relu", cpp_sources="torch::Tensor linear_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b);",
                  cuda_sources=source, functions=["linear_relu"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        try:
            return mod.linear_relu(x.contiguous(), self.linear.weight, self.linear.bias)
        except RuntimeError as e:
            raise RuntimeError(f"linear_relu failed for shape {tuple(x.shape)}") from e
