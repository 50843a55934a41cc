# Trick: inherit from the reference Model and `pass` (the reference class is pasted in; the task forbids only
# addcmul, so no forbidden op is called). Must be caught by: static.inherits_reference.
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c):
        return a * b + c


class ModelNew(Model):
    pass
