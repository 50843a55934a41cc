# Malformed: the process kills itself with SIGSEGV inside forward (as a wild pointer would).
# Expected: RUNTIME_ERROR (error kind "signal"); the worker survives.
import os
import signal

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        os.kill(os.getpid(), signal.SIGSEGV)
        return x
