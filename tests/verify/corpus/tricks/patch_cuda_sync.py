# Trick: replace torch.cuda.synchronize by a no-op, so on a GPU a harness that synchronises before reading its
# timer would stop the clock before the work is done. The output is correct (softmax from exp and division).
# Must be caught by: static.patching (runtime.identity too where the probe covers torch.cuda.synchronize).
import torch
import torch.nn as nn

torch.cuda.synchronize = lambda device=None: None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        e = torch.exp(x - x.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)
