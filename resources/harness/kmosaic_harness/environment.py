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


def _pinned_gpu():
    """The GPU UUID this worker was pinned to (CUDA_VISIBLE_DEVICES=GPU-..., the multi-GPU executor's launch):
    nvidia-smi ignores CUDA_VISIBLE_DEVICES, so it is asked about that GPU by name."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return first if first.startswith("GPU-") else ""


def _gpu():
    pinned = _pinned_gpu()
    only = ["--id=" + pinned] if pinned else []
    text = _run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,"
                 "persistence_mode,power.limit", "--format=csv,noheader"] + only)
    if not text:
        return {}
    first = [p.strip() for p in text.splitlines()[0].split(",")]
    keys = ["name", "driver", "sm_clock", "mem_clock", "max_sm_clock", "persistence", "power_limit"]
    info = dict(zip(keys, first))
    info["count"] = len(text.splitlines())
    cap = _run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"] + only)
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
    if "CUDA_VISIBLE_DEVICES" in os.environ:  # the GPU(s) this worker was pinned to, as it was started
        env["cuda_visible_devices"] = os.environ["CUDA_VISIBLE_DEVICES"]
    gpu = _gpu()
    if gpu:
        env["gpu"] = gpu
    return env


def cuda_usable():
    """Whether the CUDA build of torch sees a GPU, asked without initialising CUDA here (NVML via nvidia-smi)."""
    if not torch.version.cuda:
        return False
    return bool(_gpu())


def fork_is_clean():
    """Whether a child forked from this process can still initialise CUDA: false when something here has already
    touched the CUDA runtime (torch then refuses CUDA in every forked child). Asked by forking once."""
    bad_fork = getattr(torch.cuda, "_is_in_bad_fork", None)
    if not torch.version.cuda or bad_fork is None:
        return True
    pid = os.fork()
    if pid == 0:
        os._exit(1 if bad_fork() else 0)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

