"""KernelMosaic verification harness: the part of the verifier that must run inside PyTorch.

Driven by the C++ core over the line-based JSON protocol of docs/verifier.md (`python3 -m kmosaic_harness worker`).
"""

HARNESS_VERSION = "1.0.0"
PROTOCOL_VERSION = 1
