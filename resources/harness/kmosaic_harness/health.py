"""The health check of the device a worker is pinned to (op "health"): a fresh process initialises CUDA on
cuda:0 (the GPU that CUDA_VISIBLE_DEVICES leaves visible), runs one small kernel and checks its result. The worker
itself never initialises CUDA (it forks), so the check runs in a child; on the CPU it checks that torch computes."""
import os
import subprocess
import sys
import time

_CHECK = """
import sys, torch
dev = sys.argv[1]
x = torch.arange(1024, dtype=torch.float32, device=dev)
s = float((x * 2).sum().item())
if dev == "cuda":
    torch.cuda.synchronize()
    print(torch.cuda.get_device_name(0))
else:
    print("cpu")
assert s == 1047552.0, f"a sum of 1024 numbers came out {s}, not 1047552"
"""


def check(device, cuda_usable, timeout_s=120):
    """{healthy, device, name, seconds, message}: whether `device` ("cuda", "cpu" or "auto") computes correctly."""
    dev = "cuda" if device == "cuda" or (device == "auto" and cuda_usable) else "cpu"
    start = time.monotonic()
    result = {"device": dev, "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
    try:
        p = subprocess.run([sys.executable, "-c", _CHECK, dev], capture_output=True, text=True, timeout=timeout_s,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return dict(result, healthy=False, seconds=time.monotonic() - start,
                    message=f"the {dev} health check did not finish within {timeout_s} s")
    except OSError as e:
        return dict(result, healthy=False, seconds=time.monotonic() - start, message=f"could not run: {e}")
    lines = (p.stderr or "").strip().splitlines()
    result.update(seconds=round(time.monotonic() - start, 3), healthy=p.returncode == 0,
                  name=(p.stdout or "").strip().splitlines()[-1] if (p.stdout or "").strip() else "")
    result["message"] = "ok" if p.returncode == 0 else (lines[-1] if lines else f"exit code {p.returncode}")
    return result
