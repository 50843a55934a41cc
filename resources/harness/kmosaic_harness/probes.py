"""Runtime probes in the solution's process: output types, input integrity, allocator poisoning, profiler
attribution. Each returns evidence; the worker turns it into findings and a status."""
import torch


class Findings:
    def __init__(self, sink):
        self._sink = sink
        self._seen = set()

    def add(self, check, message, severity="error"):
        if (check, message) in self._seen:
            return
        self._seen.add((check, message))
        self._sink.append({"check": check, "severity": severity, "line": 0, "message": message})


def check_output_types(T, outs, device):
    for i, o in enumerate(outs):
        if type(o) is not T.tensor_type:
            return f"output {i} is a {type(o).__module__}.{type(o).__qualname__}, not exactly torch.Tensor"
        if o.layout != torch.strided:
            return f"output {i} has layout {o.layout}, not a strided tensor"
        if o.device.type != device:
            return f"output {i} is on {o.device}, expected {device}"
        if o.numel() > 0 and o.data_ptr() == 0:
            return f"output {i} has no storage"
    return ""


def shape_mismatch(outs, expected):
    if len(outs) != len(expected):
        return f"returns {len(outs)} output(s), the reference returns {len(expected)}"
    for i, (o, e) in enumerate(zip(outs, expected)):
        if not isinstance(o, torch.Tensor):
            return f"output {i} is {type(o).__name__}, not a tensor"
        if list(o.shape) != list(e["shape"]):
            return f"output {i} has shape {list(o.shape)}, the reference's is {e['shape']}"
    return ""


def changed_inputs(inputs, originals):
    changed = []
    for i, (a, b) in enumerate(zip(inputs, originals)):
        if isinstance(a, torch.Tensor):
            if a.shape != b.shape or a.dtype != b.dtype or not torch.equal(a, b):
                changed.append(i)
        elif a != b:
            changed.append(i)
    return changed


def poison_allocator(device, expected):
    """Fills the caching allocator's free blocks of the output sizes with NaN, so that memory handed back by
    torch.empty holds no earlier result."""
    if device != "cuda":
        return
    keep = []
    for e in expected:
        n = 1
        for d in e["shape"]:
            n *= d
        for _ in range(3):
            t = torch.empty(max(n, 1), dtype=torch.float32, device="cuda")
            t.fill_(float("nan"))
            keep.append(t)
    del keep


def profile(forward, own_names):
    """Share of GPU kernel time spent in the solution's own kernels, from one profiled call of `forward` (the timed
    model on the timing inputs)."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile
    forward()
    torch.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        forward()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        dt = str(getattr(e, "device_type", ""))
        if "CUDA" not in dt:
            continue
        us = e.time_range.elapsed_us() if getattr(e, "time_range", None) else 0
        kernels[e.name] = kernels.get(e.name, 0) + us
    total = sum(kernels.values())
    own = sum(us for name, us in kernels.items() if any(n in name for n in own_names))
    listing = sorted(({"name": k[:200], "ms": v / 1000.0, "own": any(n in k for n in own_names)}
                      for k, v in kernels.items()), key=lambda k: -k["ms"])[:20]
    return {"own_kernel_share": (own / total) if total else 0.0, "kernels": listing, "total_ms": total / 1000.0}
