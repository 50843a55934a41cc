"""Tensors between processes without pickle: a JSON header line and the raw bytes of each tensor.

The worker reads files written by an untrusted solution process, so nothing here may execute what it reads:
shapes and dtypes are validated against what the worker expects before a byte of data is trusted.
"""
import json
import os

import torch

DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8,
    "bool": torch.bool,
}
NAMES = {v: k for k, v in DTYPES.items()}


def dtype_name(dtype):
    return NAMES.get(dtype, str(dtype))


def describe(t):
    return {"shape": list(t.shape), "dtype": dtype_name(t.dtype)}


def to_host(tensors):
    """CPU copies of `tensors`, made while the caller holds the GPU (gpulock): write() then only touches the disk."""
    return [t.detach().to("cpu") for t in tensors]


def write(path, tensors):
    """Writes CPU copies of `tensors` (a list) to `path`."""
    with open(path, "wb") as f:
        metas = []
        blobs = []
        for t in tensors:
            c = t.detach().to("cpu").contiguous()
            raw = c.reshape(-1).view(torch.uint8) if c.numel() else torch.empty(0, dtype=torch.uint8)
            metas.append({"shape": list(c.shape), "dtype": dtype_name(c.dtype), "nbytes": raw.numel()})
            blobs.append(raw)
        f.write((json.dumps(metas) + "\n").encode())
        for raw in blobs:
            if raw.numel():
                f.write(memoryview(raw.numpy()))  # no intermediate bytes copy of a 256 MB output


class FormatError(Exception):
    pass


def read(path, max_bytes):
    """Reads tensors written by write(); refuses files larger than max_bytes or inconsistent headers."""
    size = os.path.getsize(path)
    if size > max_bytes:
        raise FormatError(f"output file of {size} bytes exceeds the limit of {max_bytes}")
    with open(path, "rb") as f:
        header = f.readline(1 << 20)
        try:
            metas = json.loads(header)
        except ValueError as e:
            raise FormatError(f"bad output header: {e}")
        if not isinstance(metas, list):
            raise FormatError("bad output header")
        out = []
        for m in metas:
            try:
                dtype = DTYPES[m["dtype"]]
                shape = [int(d) for d in m["shape"]]
                nbytes = int(m["nbytes"])
            except (KeyError, TypeError, ValueError):
                raise FormatError("bad tensor header")
            numel = 1
            for d in shape:
                if d < 0:
                    raise FormatError("negative dimension")
                numel *= d
            if numel * torch.empty(0, dtype=dtype).element_size() != nbytes:
                raise FormatError("tensor size does not match its shape")
            raw = torch.empty(nbytes, dtype=torch.uint8)
            if nbytes and f.readinto(memoryview(raw.numpy())) != nbytes:  # one copy, straight into the tensor
                raise FormatError("truncated tensor data")
            t = raw.view(dtype).reshape(shape)
            out.append(t)
        return out
