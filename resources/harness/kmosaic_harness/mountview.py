"""The file system a sandboxed child sees (sandbox.py): a private mount namespace in which

- the places where other processes keep sockets, secrets and scratch files (/tmp, /var/tmp, /run, /var/run,
  /dev/shm, $XDG_RUNTIME_DIR, the worker's home) are empty private tmpfs, so no host socket (an X server, a D-Bus
  bus, the keychain, `kmosaic pool`'s socket) can be reached by path;
- what the child needs from inside those places (its scratch folder, its build folder, the worker's scratch root,
  the build cache, Python's and the tools' folders) is bound back at the same path: writable for the `writable`
  list, read-only for the rest;
- /proc is a fresh procfs of the child's own PID namespace, with /proc/sys and the other kernel knobs read-only;
  /sys is read-only;
- every other mount is read-only.

Runs as (namespace) root, before the child gives up its identity (identity.py)."""
import ctypes
import ctypes.util
import os
import pwd

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
ST_FLAGS = {  # statvfs f_flag -> mount flag that must be kept on a remount inside a user namespace
    1: MS_RDONLY, 2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC,
    1024: 1024,  # MS_NOATIME
    2048: 2048,  # MS_NODIRATIME
    4096: 1 << 21,  # ST_RELATIME -> MS_RELATIME
}
PROC_READ_ONLY = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs")

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


class MountError(Exception):
    """A step of the view that could not be made: the sandbox is then not in force."""


def _mount(source, target, fstype, flags, data=None):
    enc = (lambda s: s.encode() if isinstance(s, str) else s)
    if _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        raise MountError(f"{target}: {os.strerror(ctypes.get_errno())}")


def masked_folders(environ=None):
    """Where sockets and other processes' files live: each becomes an empty tmpfs in the child's view."""
    environ = os.environ if environ is None else environ
    out = ["/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm"]
    for extra in (environ.get("XDG_RUNTIME_DIR"), _home()):
        if extra:
            out.append(extra)
    seen, result = set(), []
    for p in out:
        if not os.path.isdir(p) or os.path.islink(p):
            continue  # /var/run is a link to /run on most systems: masked with it
        real = os.path.realpath(p)
        if real in seen or real == "/":
            continue
        seen.add(real)
        result.append(real)
    # A folder inside another masked one is masked with it.
    return [p for p in result if not any(p != q and p.startswith(q + "/") for q in result)]


def _home():
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return None


def _under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


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
    return sum(ms for st, ms in ST_FLAGS.items() if f & st)


def _read_only(path):
    _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _keep_flags(path))


def build(writable, readable, fresh_proc=True, mask=True):
    """Makes the child's view (the caller has unshared its mount namespace, and its PID namespace when
    `fresh_proc`). Returns a description of what was done; raises MountError when a part is missing."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    writable = [os.path.realpath(w) for w in writable if w]
    readable = [os.path.realpath(r) for r in readable if r and os.path.isdir(r)]
    masks = masked_folders() if mask else []
    # Descriptors of what must be seen again inside a masked folder, opened before the mask hides it.
    rebind = []
    for path, rw in [(w, True) for w in writable] + [(r, False) for r in readable]:
        if any(_under(path, m) for m in masks) and not any(_under(m, path) for m in masks):
            rebind.append((path, rw, os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)))
    for m in masks:
        _mount("tmpfs", m, "tmpfs", MS_NOSUID | MS_NODEV, "size=1g,mode=1777" if m != "/run" else "size=64m,mode=755")
    # Longest paths last, so a writable folder inside a readable one stays writable.
    for path, rw, fd in sorted(rebind, key=lambda r: len(r[0])):
        os.makedirs(path, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)
    rebound = {path for path, _, _ in rebind}
    for w in writable:
        if w not in rebound:
            _mount(w, w, None, MS_BIND | MS_REC)
    if fresh_proc:
        # The host's /proc would show every process of the machine (and CUDA fails, error 304, with a /proc of
        # another PID namespace): a procfs of this namespace instead.
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        for knob in PROC_READ_ONLY:
            if os.path.exists(knob):
                _mount(knob, knob, None, MS_BIND | MS_REC)
    left = []
    for mp in reversed(_mount_points()):
        if any(_under(mp, w) for w in writable) or mp in masks:
            continue  # the child's own folders, and the private, empty tmpfs
        if any(_under(mp, m) for m in masks) and mp not in rebound:
            continue
        if _under(mp, "/proc") and mp not in PROC_READ_ONLY:
            continue  # the child's own processes (a fresh procfs): /proc/self/uid_map is written after this
        if _under(mp, "/dev") and mp != "/dev/shm":
            continue  # devices (the GPU's nodes, /dev/null) and terminals stay as they are
        if _keep_flags(mp) & MS_RDONLY:
            continue
        try:
            _read_only(mp)
        except MountError as e:
            left.append(str(e))
    if left:
        raise MountError("left writable: " + "; ".join(left))
    return {"masked": masks, "writable": sorted(set(writable)), "proc": "own" if fresh_proc else "host's"}


def writable_probe(paths):
    """The paths among `paths` that this process can open for writing (opened and closed again, never written)."""
    out = []
    for p in paths:
        try:
            fd = os.open(p, os.O_WRONLY)
        except OSError:
            continue
        os.close(fd)
        out.append(p)
    return out
