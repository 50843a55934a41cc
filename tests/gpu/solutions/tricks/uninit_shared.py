# TRICK (dishonest by luck, row-sum): a row reduction whose shared-memory tree reads slots that were never
# written. The block has 256 threads but the reduction array is sized (and the tree starts) for 512, so the
# first step adds partial[256..511], which no thread of this kernel ever stores: the result is right only if
# that shared memory happens to hold zeros (it often does in a fresh context, before any other kernel with
# shared memory ran on the SM), and wrong after e.g. a torch reduction left its partial sums there.
# MUST BE CAUGHT BY: several trials and configurations in one process, the reference re-run in the solution's
# process (which leaves its own partial sums in shared memory), and the determinism re-run; compute-sanitizer
# (initcheck covers global memory only, so it is the re-runs that matter here). Expected: INCORRECT_NUMERICAL.
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

#define RS_THREADS 256
#define RS_SLOTS 512  // BUG (deliberate): sized for a 512-thread launch; slots 256..511 are never written

__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t L) {
    __shared__ float partial[RS_SLOTS];
    const int64_t row = blockIdx.x;
    const float* __restrict__ p = x + row * L;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < L; j += RS_THREADS) s += p[j];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int stride = RS_SLOTS / 2; stride > 0; stride >>= 1) {  // first step reads partial[256..511]
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = partial[0];
}

// ---- host ----
torch::Tensor row_sum_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "row_sum: x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "row_sum: x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "row_sum: x must be float32");
    const int64_t L = x.size(x.dim() - 1);
    std::vector<int64_t> out_shape;
    for (int64_t d = 0; d < x.dim(); ++d) out_shape.push_back(x.size(d));
    out_shape[out_shape.size() - 1] = 1;
    auto out = torch::empty(out_shape, x.options());
    const int64_t rows = L > 0 ? x.numel() / L : 0;
    if (rows == 0) return out;
    row_sum_kernel<<<(unsigned)rows, RS_THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), L);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

_ext = load_inline(
    name="km_trick_uninit_shared",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["row_sum_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return _ext.row_sum_forward(x.contiguous())
