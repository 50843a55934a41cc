"""Which part of the harness's child isolation does CUDA tolerate? Forks one child per variant and initialises CUDA
in it. Usage: PYTHONPATH=resources/harness python3 tests/gpu/probe_sandbox.py"""
import os
import sys
import tempfile
import traceback

import torch

from kmosaic_harness import sandbox


def variant(name):
    scratch = tempfile.mkdtemp()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        msg = ""
        try:
            if name in ("mounts-all", "mounts-but-dev", "mounts-but-proc-sys"):
                keep = {"mounts-all": (), "mounts-but-dev": ("/dev",), "mounts-but-proc-sys": ("/proc", "/sys")}[name]
                desc, problems = sandbox._read_only_except([scratch], keep_pseudo=keep)
                msg += f"[{desc} {problems}] "
            if name == "caps":
                msg += sandbox._drop_capabilities() + " "
            if name == "full":
                msg = str(sandbox.enter(scratch, [], {"file_mb": 64, "memory_mb": 8192, "timeout_s": 60}, False)) + " "
            n = torch.cuda.device_count()
            x = torch.ones(4, device="cuda") * 2
            msg += f"OK devices={n} sum={float(x.sum())}"
        except Exception as e:  # noqa: BLE001
            msg += "FAIL " + "".join(traceback.format_exception_only(type(e), e)).strip()[:400]
        os.write(w, msg.encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.waitpid(pid, 0)
    print(f"{name:12s} {data.decode()}", flush=True)


for v in ["none", "mounts-all", "mounts-but-dev", "mounts-but-proc-sys", "full"]:
    variant(v)
print("uid", os.getuid(), "devs", sorted(os.listdir("/dev"))[:40])
