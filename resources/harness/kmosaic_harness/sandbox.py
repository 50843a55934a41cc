"""What a child process does to itself before it runs untrusted code (docs/verifier.md, "Threat model"):

1. its own process group, resource limits, no core dumps;
2. its own mount namespace (mountview.py: host sockets and scratch places hidden, everything read-only but its own
   folders, /proc/sys and /sys read-only) and its own PID namespace, of which it is the first process, so that every
   process it starts dies with it (`spawn` kills it; the kernel kills the rest of the namespace);
3. uid 65534 in a user namespace of its own, never root (identity.py); no capabilities, no_new_privs;
4. its own network namespace, empty (not even loopback is up): no TCP/IP, and no abstract Unix socket of the host
   or of another child (those live in a network namespace; the executor's `unshare --net` of the worker is a
   second wall).

A sandbox that cannot be set up in full stops the child before any untrusted code runs (SandboxError: the verdict is a
SYSTEM_ERROR), unless the user turned it off (`kmosaic verify --unsafe-no-sandbox`: POLICY["enabled"] False). The
verdict's `isolation` record says exactly what was applied.
"""
import ctypes
import ctypes.util
import os
import resource
import signal
import sys

from . import identity, mountview

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1

# Set by the worker before it forks (children inherit it): whether to sandbox, and the folders every child must see
# (read-only) besides its own: the worker's scratch root, the build cache, the harness, Python's and the tools'.
POLICY = {"enabled": True, "readable": []}

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class SandboxError(Exception):
    """The sandbox could not be set up: no untrusted code may run in this process."""


def configure(enabled=True, readable=()):
    POLICY["enabled"] = bool(enabled)
    POLICY["readable"] = [p for p in readable if p]


def network_state():
    """'netns (loopback only)' when the process has no interface but lo, else the interfaces it can see."""
    try:
        with open("/proc/self/net/dev") as f:
            names = [line.split(":")[0].strip() for line in f.readlines()[2:]]
    except OSError:
        return "unknown"
    others = [n for n in names if n and n != "lo"]
    return "netns (loopback only)" if not others else "host network (" + ", ".join(others) + ")"


def _limits(limits, use_address_space_limit):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    file_bytes = int(limits["file_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    applied = {"file_mb": limits["file_mb"], "memory_mb": limits["memory_mb"], "wall_s": limits["timeout_s"]}
    if use_address_space_limit:
        # CUDA reserves far more address space than it uses, so the address-space limit is for CPU runs only;
        # on a GPU the worker watches the child's resident memory instead.
        mem_bytes = int(limits["memory_mb"]) << 20
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
        applied["memory_kind"] = "address space"
    else:
        applied["memory_kind"] = "resident (watched)"
    return applied


def _readable(writable):
    """What the child must see besides its own folders: the worker's list, Python's import path, the tools' PATH."""
    out = list(POLICY["readable"]) + [p for p in sys.path if p] + [os.path.dirname(sys.executable)]
    out += [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    return [p for p in dict.fromkeys(out) if os.path.isdir(p) and p not in writable]


def _own_pid_namespace():
    """Unshares the mount, PID and network namespaces and forks: the caller returns as the namespace's first process; the
    original process stays behind only to wait for it and end as it ended (the worker waits for that one)."""
    if _libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET) != 0:
        raise SandboxError("no mount, PID and network namespace: " + os.strerror(ctypes.get_errno()))
    pid = os.fork()
    if pid == 0:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        return
    _mirror(pid)  # never returns


def _mirror(pid):
    """In the process left outside the namespace: end as the namespace's first process ended."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(70)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def enter(scratch, writable_extra, limits, use_address_space_limit):
    """Applies isolation to the calling (child) process. Returns the isolation report; raises SandboxError when the
    sandbox is asked for and any part of it could not be made."""
    os.setsid()
    report = {"limits": _limits(limits, use_address_space_limit)}
    writable = [os.path.realpath(p) for p in [scratch] + list(writable_extra)]
    if not POLICY["enabled"]:
        report.update(network=network_state(), sandbox="off (--unsafe-no-sandbox)",
                      filesystem="host's (no sandbox)", process="own process group")
        os.chdir(scratch)
        return report
    try:
        identity.hand_over(writable)
        readable = _readable(writable)
        _own_pid_namespace()
        view = mountview.build(writable, readable)
        who = identity.become_nobody()
        caps = identity.drop_capabilities()
    except (OSError, mountview.MountError, identity.IdentityError) as e:
        raise SandboxError(f"the sandbox could not be set up: {e}") from e
    network = network_state()
    if network != "netns (loopback only)":
        raise SandboxError(f"the sandbox could not be set up: network: {network}")
    open_knobs = mountview.writable_probe(["/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger",
                                           "/sys/kernel/uevent_helper"])
    if open_knobs:
        raise SandboxError("the sandbox could not be set up: still writable: " + ", ".join(open_knobs))
    os.chdir(scratch)
    report.update({
        "sandbox": "on",
        "network": network,
        "filesystem": "read-only except scratch; private " + ", ".join(view["masked"]) + "; /proc/sys, /sys read-only",
        "process": f"own PID namespace, own process group, {who}, {caps}",
    })
    return report


def describe(report):
    lim = report.get("limits", {})
    return (f"network: {report.get('network')}; filesystem: {report.get('filesystem')}; "
            f"process: {report.get('process')}; limits: wall {lim.get('wall_s')} s, memory {lim.get('memory_mb')} "
            f"MiB ({lim.get('memory_kind')}), files {lim.get('file_mb')} MiB")
