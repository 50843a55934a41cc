"""Tensors between processes without pickle: a JSON header line and the raw bytes of each tensor; or, for tensors on
a GPU, the header alone, naming the exported GPU memory that holds each tensor's bytes (cudaipc).

The judge reads files written by an untrusted solution process, so nothing here may execute what it reads:
shapes and dtypes are validated against what the worker expects before a byte of data is trusted.
"""
import json
import mmap
import os

import torch

ALIGN = 64  # every tensor's bytes start at a multiple of this in the file

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


def write(path, tensors):
    """Writes `tensors` (a list, on any device) to `path`. Each tensor's bytes are copied once, straight into the
    file's pages (a shared mapping; from a GPU that is the device-to-host copy itself), at offsets aligned to
    ALIGN so that read() can map them back without a copy."""
    metas, blobs = [], []
    for t in tensors:
        c = t.detach()
        if not c.is_contiguous():
            c = c.contiguous()
        raw = c.reshape(-1).view(torch.uint8) if c.numel() else None
        metas.append({"shape": list(c.shape), "dtype": dtype_name(c.dtype), "nbytes": raw.numel() if raw is not None
                      else 0})
        blobs.append(raw)
    header = _header(metas)
    offsets, total = _layout(len(header), metas)
    part = path + ".part"  # published whole by the rename: a reader that finds `path` finds all of it
    with open(part, "w+b") as f:
        f.write(header)
        f.truncate(total)
        if total > len(header):
            mm = mmap.mmap(f.fileno(), total)
            try:
                for raw, off in zip(blobs, offsets):
                    if raw is not None:
                        torch.frombuffer(mm, dtype=torch.uint8, count=raw.numel(), offset=off).copy_(raw)
            finally:
                try:
                    mm.close()
                except BufferError:  # a view still alive: the mapping goes with it
                    pass
    os.replace(part, path)


def write_exported(path, tensors):
    """Like write(), for CUDA tensors, without their bytes: each is exported (cudaipc.export, a copy kept alive in
    this process) and the file names the memory. Falls back to write() when a tensor cannot be exported, or when
    this process already keeps cudaipc.KEEP_BYTES exported."""
    from . import cudaipc
    metas = []
    try:
        for t in tensors:
            if t.device.type != "cuda" or cudaipc.kept_bytes() + t.numel() * t.element_size() > cudaipc.KEEP_BYTES:
                raise cudaipc.IpcError("not exported")
            metas.append(dict(describe(t), nbytes=t.numel() * t.element_size(), ipc=cudaipc.export(t)))
    except cudaipc.IpcError:
        return write(path, tensors)
    part = path + ".part"
    with open(part, "wb") as f:
        f.write(_header(metas))
    os.replace(part, path)


def _header(metas):
    line = json.dumps(metas).encode()
    pad = -(len(line) + 1) % ALIGN
    return line + b" " * pad + b"\n"  # JSON allows the trailing spaces


def _layout(start, metas):
    offsets, pos = [], start
    for m in metas:
        pos += -pos % ALIGN
        offsets.append(pos)
        pos += int(m["nbytes"])
    return offsets, pos


class FormatError(Exception):
    pass


MAX_TENSORS = 1024


def read(path, max_bytes):
    """Reads tensors written by write() or write_exported(); refuses files larger than max_bytes, tensors that add
    up to more, and inconsistent headers. Written by write(), the tensors map the file (private, copy-on-write):
    nothing is copied until they are used, and a GPU upload reads the pages directly. Written by write_exported(),
    they are copies on this process's GPU, made while the writer still lives."""
    size = os.path.getsize(path)
    if size > max_bytes:
        raise FormatError(f"output file of {size} bytes exceeds the limit of {max_bytes}")
    with open(path, "rb") as f:
        header = f.readline(1 << 20)
        try:
            metas = json.loads(header)
        except ValueError as e:
            raise FormatError(f"bad output header: {e}")
        if not isinstance(metas, list) or len(metas) > MAX_TENSORS:
            raise FormatError("bad output header")
        checked = []
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
            checked.append((dtype, shape, nbytes))
        if sum(n for _, _, n in checked) > max_bytes:
            raise FormatError(f"outputs of {sum(n for _, _, n in checked)} bytes exceed the limit of {max_bytes}")
        exported = [m.get("ipc") if isinstance(m, dict) else None for m in metas]
        if any(e is not None for e in exported):
            return _read_exported(checked, exported)
        offsets, end = _layout(len(header), [{"nbytes": n} for _, _, n in checked])
        if end > size:
            raise FormatError("truncated tensor data")
        mm = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY) if size > len(header) else None
    out = []
    for (dtype, shape, nbytes), off in zip(checked, offsets):
        if not nbytes:
            out.append(torch.empty(shape, dtype=dtype))
            continue
        raw = torch.frombuffer(mm, dtype=torch.uint8, count=nbytes, offset=off)  # aligned: _layout
        out.append(raw.view(dtype).reshape(shape))
    return out


def _read_exported(checked, exported):
    from . import cudaipc
    if not all(isinstance(e, dict) for e in exported):
        raise FormatError("an output file mixes exported and written tensors")
    if not torch.cuda.is_available():
        raise FormatError("the outputs are in GPU memory, and this process has no GPU")
    out = []
    try:
        with cudaipc.Opened() as opened:
            for (dtype, shape, nbytes), e in zip(checked, exported):
                if not nbytes:
                    out.append(torch.empty(shape, dtype=dtype, device="cuda"))
                    continue
                raw = opened.copy_out(e.get("handle"), e.get("offset"), nbytes)
                out.append(raw.view(dtype).reshape(shape))
    except cudaipc.IpcError as err:
        raise FormatError(f"exported outputs: {err}")
    return out
