"""The harness's sandbox (issue 17) on the GPU machine, through spawn.run_child as the worker uses it:
  1. CUDA starts in a sandboxed child (uid 65534 in its own user namespace; own mount, PID and network namespaces;
     /proc/sys and /sys read-only; /tmp, /run, /dev/shm private) and runs a kernel;
  2. CUDA IPC between two sandboxed children (each in its own PID and network namespace): one exports an output as
     the solution child does (tensorio.write_exported, lingering), the other opens and reads it as the judge does;
  3. Nsight Compute and compute-sanitizer inside a sandboxed child (as tools.run_tool runs them);
  4. what a sandboxed child costs to start, against one without the sandbox (trivial work, median of 7).
Prints one line per check, a table last. Usage: PYTHONPATH=resources/harness python3 tests/gpu/probe_sandbox.py
[--cuda-only] (the GPU machine runs it as root; run it also under `unshare --user --map-root-user` as a non-root
uid to see the desktop route)."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch  # noqa: F401 - imported before any fork, as the worker does

from kmosaic_harness import sandbox, spawn, tensorio

LIM = {"timeout_s": 180, "memory_mb": 65536, "file_mb": 4096}
ROWS = []


def row(name, ok, note):
    ROWS.append((name, "ok" if ok else "FAIL", note))
    print(f"{name}: {'ok' if ok else 'FAIL'} {note}", flush=True)


def run(root, name, work, gated=False, linger=False):
    return spawn.start_child(os.path.join(root, name), [], LIM, False, work, gated, linger)


def cuda_work(report, phase):
    t0 = time.time()
    x = torch.ones(1 << 20, device="cuda") * 2
    s = float(x.sum())
    return {"ok": s == 2.0 * (1 << 20), "seconds": round(time.time() - t0, 3), "uid": os.getuid(),
            "pid": os.getpid(), "process": report.get("process"), "filesystem": report.get("filesystem")}


def check_cuda(root):
    out = run(root, "cuda", cuda_work).wait()
    res = out.get("result") or {}
    row("CUDA in the sandbox", bool(res.get("ok")) and res.get("uid") == 65534 and res.get("pid") == 2,
        f"{res.get('seconds')} s; {res.get('process')}; {res.get('error') or ''} {out.get('log_tail', '')[-300:]}")


def check_ipc(root, label, skip=(), join=False):
    """One output exported by one sandboxed child and read by another, each sandboxed but for `skip`; `join`: the
    reader joins the exporter's PID namespace."""
    sandbox.configure(True, [root], skip)
    tag = label.replace(" ", "-")
    path = os.path.join(root, f"exp-{tag}", "out.bin")
    n = 64 << 20

    def exporter(report, phase, gate):
        t = torch.arange(n, device="cuda", dtype=torch.float32)
        tensorio.write_exported(path, [t])
        return {"ok": True}

    exp = spawn.start_child(os.path.join(root, f"exp-{tag}"), [], LIM, False, exporter, True, True)
    exp.release({})
    first = exp.wait_result()

    def reader(report, phase):
        t0 = time.time()
        torch.zeros(1, device="cuda")  # a current context, as the judge has (cuIpcOpenMemHandle needs one)
        got = tensorio.read(path, 1 << 34)
        t = got[0].to("cuda")
        top = (1 << 24) - 1  # exactly representable in float32
        ok = t.numel() == n and float(t[top]) == float(top) and float(t[12345]) == 12345.0
        return {"ok": ok, "seconds": round(time.time() - t0, 3), "process": report.get("process")}

    out = spawn.start_child(os.path.join(root, f"reader-{tag}"), [], LIM, False, reader,
                            share_pids_with=exp if join else None).wait()
    exp.kill()
    sandbox.configure(True, [root])
    res = out.get("result") or {}
    err = (res.get("error") or {}).get("message", "") or out.get("log_tail", "")[-200:]
    row(f"CUDA IPC, {label}", bool(res.get("ok")),
        f"exporter: {(first.get('result') or {}).get('error') or 'ok'}; reader: {res.get('seconds')} s "
        f"{res.get('process')} {err[:200]}")


def check_tool(root, name, cmd, good):
    target = [sys.executable, "-c", "import torch; x = torch.ones(1 << 16, device='cuda'); print(float((x * 2).sum()))"]

    def work(report, phase):
        p = subprocess.run(cmd + target, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        return {"code": p.returncode, "out": p.stdout[-1500:]}

    out = run(root, name, work).wait()
    res = out.get("result") or {}
    text = res.get("out", "") + str(res.get("error", ""))
    row(f"{name} in the sandbox", good(text), f"rc {res.get('code')}: " + " | ".join(text.splitlines()[-4:])[-400:])


def check_cost(root):
    times = {}
    for enabled in (False, True):
        sandbox.configure(enabled, [root])
        t = []
        for i in range(7):
            t0 = time.monotonic()
            run(root, f"cost{int(enabled)}{i}", lambda report, phase: {}).wait()
            t.append(time.monotonic() - t0)
        times[enabled] = statistics.median(t)
    sandbox.configure(True, [root])
    row("start of a child, sandbox off / on", True, f"{times[False] * 1000:.1f} ms / {times[True] * 1000:.1f} ms")


def main():
    root = tempfile.mkdtemp(prefix="kmprobe-")
    os.chmod(root, 0o711)
    sandbox.configure(True, [root])
    print("uid", os.getuid(), "uid_map", open("/proc/self/uid_map").read().split(), flush=True)
    check_cuda(root)
    if "--cuda-only" not in sys.argv:
        check_ipc(root, "both sandboxed, own PID namespaces")
        check_ipc(root, "reader in the exporter's PID namespace", join=True)
        for skip in [("dumpable",), ("uid",), ("masks",), ("net",), ("pid", "net"), ("pid", "net", "user"),
                     ("pid", "net", "user", "uid"), ("pid", "net", "user", "uid", "masks")]:
            check_ipc(root, "without " + "+".join(skip), skip=skip)
        check_ipc(root, "reader in the exporter's PID namespace, dumpable", skip=("dumpable",), join=True)
        check_tool(root, "ncu", ["ncu", "--metrics", "gpu__time_duration.sum"],
                   lambda t: "gpu__time_duration.sum" in t and "ERR_NVGPUCTRPERM" not in t)
        check_tool(root, "compute-sanitizer", ["compute-sanitizer", "--tool", "memcheck"],
                   lambda t: "ERROR SUMMARY: 0 errors" in t)
        check_cost(root)
    print("\n| check | result | note |\n| --- | --- | --- |")
    for name, ok, note in ROWS:
        print(f"| {name} | {ok} | {note.strip()[:300]} |")


if __name__ == "__main__":
    main()
