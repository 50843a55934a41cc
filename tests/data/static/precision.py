import torch
import torch.nn as nn

src = """
#include <cuda_fp16.h>
__global__ void k(const float* x, __half* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2half(x[i]);
}
__global__ void k2(half2* a, __nv_bfloat16* b) {}
bool is_half(torch::Tensor t) { return t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16; }
"""


class ModelNew(nn.Module):
    def forward(self, x):
        a = x.half()
        b = x.bfloat16()
        c = x.to(torch.float16)
        d = torch.empty(4, dtype=torch.bfloat16, device=x.device)
        return a.float() + b.float() + c.float() + d.float().sum()
