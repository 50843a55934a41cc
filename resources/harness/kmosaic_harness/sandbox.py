"""What a child process does to itself before it runs untrusted code: its own process group, resource limits,
a mount namespace in which everything but its scratch folder (and its build folder) is read-only, no capabilities.

Every step is best effort and reported: the verdict records the isolation that was actually in force.
"""
import ctypes
import ctypes.util
import os
import resource

CLONE_NEWNS = 0x00020000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4
SYS_CAPSET = 126  # x86_64
ST_FLAGS = {  # statvfs f_flag -> mount flag that must be kept on a remount inside a user namespace
    1: MS_RDONLY, 2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC,
    1024: 1024,  # MS_NOATIME
    2048: 2048,  # MS_NODIRATIME
    4096: 1 << 21,  # ST_RELATIME -> MS_RELATIME
}

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


def _mount(source, target, flags):
    r = _libc.mount(source, target.encode(), None, flags, None)
    if r != 0:
        return os.strerror(ctypes.get_errno())
    return ""


def network_state():
    """'netns (loopback only)' when the process has no interface but lo, else the interfaces it can see."""
    try:
        with open("/proc/self/net/dev") as f:
            names = [line.split(":")[0].strip() for line in f.readlines()[2:]]
    except OSError:
        return "unknown"
    others = [n for n in names if n and n != "lo"]
    return "netns (loopback only)" if not others else "host network (" + ", ".join(others) + ")"


def _mount_points():
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 4:
                points.append(parts[4].replace("\\040", " "))
    return points


def _keep_flags(path):
    try:
        f = os.statvfs(path).f_flag
    except OSError:
        return 0
    flags = 0
    for st, ms in ST_FLAGS.items():
        if f & st:
            flags |= ms
    return flags


# Kernel interfaces stay as they are: the CUDA driver fails (error 304) when /proc and /sys are read-only, and
# they are not places where a file can be planted for a later process (/dev/shm gets a private tmpfs below).
PSEUDO = ("/proc", "/sys")


def _read_only_except(writable, private_tmpfs=True, keep_pseudo=PSEUDO):
    """Private mount namespace; binds each writable folder onto itself, then remounts every other mount read-only.
    Returns (description, list of problems)."""
    if _libc.unshare(CLONE_NEWNS) != 0:
        return "none (no mount namespace: " + os.strerror(ctypes.get_errno()) + ")", []
    err = _mount(b"none", "/", MS_REC | MS_PRIVATE)
    if err:
        return "none (mounts not private: " + err + ")", []
    problems = []
    if private_tmpfs:
        # The CUDA driver and torch want a writable /dev/shm (and tools a /tmp): each child gets empty, private ones
        # that vanish with it, so nothing written there reaches another process.
        for tmp in ("/dev/shm", "/tmp"):
            if os.path.isdir(tmp) and not any(w == tmp or w.startswith(tmp + "/") for w in writable):
                err = _libc.mount(b"tmpfs", tmp.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1g,mode=1777")
                if err != 0:
                    problems.append(f"{tmp}: private tmpfs: {os.strerror(ctypes.get_errno())}")
                else:
                    writable = list(writable) + [tmp]
    for w in writable:
        err = _mount(w.encode(), w, MS_BIND | MS_REC)
        if err:
            problems.append(f"{w}: {err}")
    keep = set(writable)
    left_writable = []
    for mp in reversed(_mount_points()):
        if mp in keep or any(mp.startswith(w.rstrip("/") + "/") for w in writable):
            continue
        if any(mp == p or mp.startswith(p + "/") for p in keep_pseudo):
            continue
        if _keep_flags(mp) & MS_RDONLY:
            continue
        err = _mount(None, mp, MS_REMOUNT | MS_BIND | MS_RDONLY | _keep_flags(mp))
        if err and mp not in left_writable:
            left_writable.append(mp)
    # Anything left writable that matters? /proc and /sys entries are not files a solution can plant things in.
    serious = [m for m in left_writable if not (m.startswith("/proc") or m.startswith("/sys") or m.startswith("/dev"))]
    if serious:
        problems.append("left writable: " + ", ".join(serious))
    if any(p for p in problems if not p.startswith("left writable")):
        return "partial", problems
    return ("read-only except scratch" if not serious else "partial"), problems


def _drop_capabilities():
    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    hdr = Header(0x20080522, 0)
    data = (Data * 2)()
    if _libc.syscall(SYS_CAPSET, ctypes.byref(hdr), ctypes.byref(data)) != 0:
        return "capabilities kept (" + os.strerror(ctypes.get_errno()) + ")"
    return "no capabilities"


def enter(scratch, writable_extra, limits, use_address_space_limit):
    """Applies isolation to the calling (child) process. Returns the isolation report."""
    os.setsid()
    applied = {}
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    file_bytes = int(limits["file_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    applied["file_mb"] = limits["file_mb"]
    mem_bytes = int(limits["memory_mb"]) << 20
    if use_address_space_limit:
        # CUDA reserves far more address space than it uses, so the address-space limit is for CPU runs only;
        # on a GPU the worker watches the child's resident memory instead.
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
        applied["memory_mb"] = limits["memory_mb"]
        applied["memory_kind"] = "address space"
    else:
        applied["memory_mb"] = limits["memory_mb"]
        applied["memory_kind"] = "resident (watched)"
    applied["wall_s"] = limits["timeout_s"]
    filesystem, problems = _read_only_except([scratch] + list(writable_extra))
    caps = _drop_capabilities()
    os.chdir(scratch)
    report = {
        "network": network_state(),
        "filesystem": filesystem,
        "process": "own process group, " + caps,
        "limits": applied,
    }
    if problems:
        report["problems"] = problems
    return report


def describe(report):
    lim = report.get("limits", {})
    return (f"network: {report.get('network')}; filesystem: {report.get('filesystem')}; "
            f"limits: wall {lim.get('wall_s')} s, memory {lim.get('memory_mb')} MiB ({lim.get('memory_kind')}), "
            f"files {lim.get('file_mb')} MiB")
