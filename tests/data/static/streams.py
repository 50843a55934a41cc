import torch
import torch.nn as nn

src = """
#include <ATen/cuda/CUDAContext.h>
// cudaStreamCreate(&s) here is only a comment
torch::Tensor run(torch::Tensor x) {
    cudaStream_t mine;
    cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    auto pooled = at::cuda::getStreamFromPool();
    at::cuda::setCurrentCUDAStream(pooled);
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetStream(h, mine);
    auto current = at::cuda::getCurrentCUDAStream();
    return x;
}
"""


class ModelNew(nn.Module):
    def forward(self, x):
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            y = x * 2
        return y
