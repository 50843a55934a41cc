"""What the figures were measured on: interpreter, torch, nvcc, GPU, driver and clocks. Collected without
initialising CUDA in the worker (nvidia-smi and nvcc are asked as separate processes)."""
import os
import platform
import shutil
import socket
import subprocess

import torch

from . import HARNESS_VERSION


def _run(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _nvcc():
    cands = [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"), shutil.which("nvcc") or ""]
    for c in cands:
        if c and os.path.exists(c):
            text = _run([c, "--version"])
            for line in text.splitlines():
                if "release" in line:
                    return line.split("release", 1)[1].strip().rstrip(".")
    return ""


def _gpu():
    text = _run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,"
                 "persistence_mode,power.limit", "--format=csv,noheader"])
    if not text:
        return {}
    first = [p.strip() for p in text.splitlines()[0].split(",")]
    keys = ["name", "driver", "sm_clock", "mem_clock", "max_sm_clock", "persistence", "power_limit"]
    info = dict(zip(keys, first))
    info["count"] = len(text.splitlines())
    cap = _run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"])
    if cap:
        info["compute_cap"] = cap.splitlines()[0].strip()
    return info


def collect():
    env = {
        "harness_version": HARNESS_VERSION,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda or "",
        "nvcc": _nvcc(),
        "host": socket.gethostname(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    gpu = _gpu()
    if gpu:
        env["gpu"] = gpu
    return env


def cuda_usable():
    """Whether the CUDA build of torch sees a GPU, asked without initialising CUDA here (NVML via nvidia-smi)."""
    if not torch.version.cuda:
        return False
    return bool(_gpu())
