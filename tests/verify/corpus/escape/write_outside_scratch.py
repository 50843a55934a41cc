# Tries to leave marks outside its scratch folder and to reach the network at import time, then computes an honest
# LeakyReLU. test_verify_cli checks that no mark exists afterwards and that the verdict records the isolation.
import os
import socket

import torch
import torch.nn as nn

for target in ("/tmp/kmosaic-escape-marker", os.path.join(os.path.dirname(os.getcwd()), "kmosaic-escape-marker")):
    try:
        with open(target, "w") as f:
            f.write("escaped")
    except OSError:
        pass

try:
    socket.create_connection(("192.0.2.1", 80), timeout=2).close()  # TEST-NET-1: never answers on a host network
except OSError:
    pass


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return x.clamp(min=0) + x.clamp(max=0) * self.negative_slope
