import threading
from concurrent.futures import ThreadPoolExecutor
import torch
import torch.nn as nn

src = """
#include <thread>
#include <future>
void launch_later(float* y) {
    std::thread worker([=] { /* std::async would also do */ });
    worker.detach();
    auto f = std::async(std::launch::async, [] {});
    pthread_t tid;
    pthread_create(&tid, nullptr, nullptr, nullptr);
}
"""


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        threading.Thread(target=lambda: out.copy_(x)).start()
        pool = torch.multiprocessing.Pool(2)
        return out
