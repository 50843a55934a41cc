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
PR_SET_CHILD_SUBREAPER = 36

# Set by the worker before it forks (children inherit it): whether to sandbox, and the folders every child must see
# (read-only) besides its own: the worker's scratch root, the build cache, the harness, Python's and the tools'.
POLICY = {"enabled": True, "readable": [], "skip": ()}  # skip: namespaces left out, for tests/gpu/probe_sandbox.py

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class SandboxError(Exception):
    """The sandbox could not be set up: no untrusted code may run in this process."""


def configure(enabled=True, readable=(), skip=()):
    POLICY["enabled"] = bool(enabled)
    POLICY["readable"] = [p for p in readable if p]
    POLICY["skip"] = tuple(skip)


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


def _namespaces(join_pid):
    """Unshares the mount and network namespaces and the PID namespace of the processes it forks next (or joins the
    PID namespace of host process `join_pid`: a verification's two children share one, as CUDA IPC needs), then
    forks: the caller returns in the new namespace; the original process only waits and ends as it ended."""
    skip = POLICY.get("skip", ())
    flags = CLONE_NEWNS | (0 if "net" in skip else CLONE_NEWNET)
    if "pid" not in skip:
        if join_pid:
            fd = os.open(f"/proc/{join_pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            try:
                if _libc.setns(fd, CLONE_NEWPID) != 0:
                    raise SandboxError(f"joining the PID namespace of {join_pid}: " + os.strerror(ctypes.get_errno()))
            finally:
                os.close(fd)
        else:
            flags |= CLONE_NEWPID
    if _libc.unshare(flags) != 0:
        raise SandboxError("no mount, PID and network namespaces: " + os.strerror(ctypes.get_errno()))
    _fork_and_mirror()


def _fork_and_mirror(init=False):
    """Forks; the parent waits for the child and ends as it ended, so that spawn's watcher sees one process that
    exits, or is killed, as the work did. The child returns, and dies with its parent. `init`: the parent is the
    first process of a PID namespace, which cannot kill itself: it passes the signal up to the mirror above it
    (through the pipe that _namespaces made), which then does."""
    global _up
    up_r = None
    if not init:
        up_r, _up = os.pipe()
    pid = os.fork()
    if pid == 0:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if up_r is not None:
            os.close(up_r)
        elif _up is not None:
            os.close(_up)  # the work has no say in how its parent ended
            _up = None
        return
    try:
        _end_as(pid, init, up_r)
    finally:
        os._exit(70)  # the waiting process never returns into the child's work


def _end_as(pid, init, up_r):
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            return
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    if up_r is not None:
        os.close(_up)
        os.set_blocking(up_r, False)
        try:
            sig = sig or int.from_bytes(os.read(up_r, 1) or b"\0", "little")
        except OSError:
            pass
    if sig and init and _up is not None:
        os.write(_up, bytes([sig]))
        return
    if sig:
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        return
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


_up = None  # in a namespace's first process: the pipe to the mirror outside, for the signal that ended the work


def namespace_process(pid):
    """The host pid of the first process inside the PID namespace of a child started by spawn (its only child)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = f.read().split()
    except OSError:
        return None
    return int(kids[0]) if kids else None


def enter(scratch, writable_extra, limits, use_address_space_limit, join_pid=None):
    """Applies isolation to the calling (child) process. Returns the isolation report; raises SandboxError when the
    sandbox is asked for and any part of it could not be made. `join_pid`: share that process's PID namespace."""
    os.setsid()
    report = {"limits": _limits(limits, use_address_space_limit)}
    writable = [os.path.realpath(p) for p in [scratch] + list(writable_extra)]
    if not POLICY["enabled"]:
        report.update(network=network_state(), sandbox="off (--unsafe-no-sandbox)",
                      filesystem="host's (no sandbox)", process="own process group")
        os.chdir(scratch)
        return report
    skip = POLICY.get("skip", ())
    try:
        identity.hand_over(writable)
        readable = _readable(writable)
        _namespaces(join_pid)
        view = mountview.build(writable, readable, fresh_proc="pid" not in skip, mask="masks" not in skip)
        who = "root (probe)" if "uid" in skip else identity.become_nobody(own_namespace="user" not in skip)
        if "dumpable" in skip:
            _libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1 (probe)
        caps = identity.drop_capabilities()
    except (OSError, mountview.MountError, identity.IdentityError) as e:
        raise SandboxError(f"the sandbox could not be set up: {e}") from e
    network = network_state()
    if network != "netns (loopback only)" and "net" not in skip:
        raise SandboxError(f"the sandbox could not be set up: network: {network}")
    open_knobs = mountview.writable_probe(["/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger",
                                           "/sys/kernel/uevent_helper"])
    if open_knobs:
        raise SandboxError("the sandbox could not be set up: still writable: " + ", ".join(open_knobs))
    # The work runs in a process of its own below the namespace's first one: signals it sends itself work as
    # anywhere (the first process of a PID namespace ignores them), and the first process, which only waits, takes
    # every other process of the namespace along when it ends.
    if "pid" not in skip and not join_pid:
        _fork_and_mirror(init=True)
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of the work stay its own (Trusted.processes)
    os.chdir(scratch)
    pid_ns = "shared PID namespace" if join_pid else "own PID namespace"
    report.update({
        "sandbox": "on" if not skip else "partial (probe: without " + ", ".join(sorted(skip)) + ")",
        "network": network,
        "filesystem": "read-only except scratch; private " + ", ".join(view["masked"]) + "; /proc/sys, /sys read-only",
        "process": f"{pid_ns}, own process group, {who}, {caps}",
    })
    return report


def describe(report):
    lim = report.get("limits", {})
    return (f"network: {report.get('network')}; filesystem: {report.get('filesystem')}; "
            f"process: {report.get('process')}; limits: wall {lim.get('wall_s')} s, memory {lim.get('memory_mb')} "
            f"MiB ({lim.get('memory_kind')}), files {lim.get('file_mb')} MiB")
