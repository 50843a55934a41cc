# Malformed: an exception while the module is imported. Expected: RUNTIME_ERROR.
import torch.nn as nn

raise RuntimeError("deliberate failure at import time")


class ModelNew(nn.Module):
    def forward(self, x):
        return x
