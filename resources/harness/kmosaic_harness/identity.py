"""Who a sandboxed child is (sandbox.py): never uid 0. After its mounts are made it becomes uid/gid 65534 (nobody) in
a user namespace of its own, mapped to a host identity that is not root, and keeps no capabilities.

Two routes, one result:
- the worker is root with uid 65534 mapped (as root on CI and on GPU machines): setresuid to 65534 first, so the
  host sees an unprivileged uid, then a user namespace that maps 65534 to itself;
- the worker is root only in a user namespace of its own (a desktop user: `unshare --user --map-root-user`): a
  nested user namespace that maps 65534 to the worker's uid, which is the desktop user's on the host.
Either way /proc/sys and /sys refuse writes by permission too (root on the host owns them), besides read-only mounts.
"""
import ctypes
import ctypes.util
import os

CLONE_NEWUSER = 0x10000000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4
SYS_CAPSET = 126  # x86_64
NOBODY = 65534

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class IdentityError(Exception):
    """The child could not give up root: the sandbox is then not in force."""


def _maps(uid):
    """Whether `uid` is mapped in this process's user namespace."""
    try:
        with open("/proc/self/uid_map") as f:
            for line in f:
                inside, _outside, count = (int(x) for x in line.split())
                if inside <= uid < inside + count:
                    return True
    except (OSError, ValueError):
        return False
    return False


def _write(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _own_user_namespace():
    """Enters a new user namespace in which this process is uid/gid 65534, mapped to what it is now (its own ids:
    allowed without privilege). Returns the host-side uid it keeps."""
    uid, gid = os.geteuid(), os.getegid()
    # A process that changed its uid is not dumpable, and its /proc/self files then belong to root: it could not
    # write its own maps. Dumpable again for that (no process outside its PID namespace can see it anyway).
    _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    if _libc.unshare(CLONE_NEWUSER) != 0:
        raise IdentityError("no user namespace: " + os.strerror(ctypes.get_errno()))
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{NOBODY} {uid} 1\n")
        _write("/proc/self/gid_map", f"{NOBODY} {gid} 1\n")
    except OSError as e:
        raise IdentityError(f"user namespace mapping: {e.strerror}") from e
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    return uid


def switches_uid():
    """Whether become_nobody() will setresuid (the worker is root with uid 65534 mapped): the child's writable
    folders must then belong to 65534."""
    return os.geteuid() == 0 and _maps(NOBODY)


def hand_over(folders):
    """Gives the writable folders (and what is in them) to uid/gid 65534, when the child is going to be that uid."""
    if not switches_uid():
        return
    for top in folders:
        os.lchown(top, NOBODY, NOBODY)
        for root, dirs, files in os.walk(top):
            for name in dirs + files:
                try:
                    os.lchown(os.path.join(root, name), NOBODY, NOBODY)
                except FileNotFoundError:
                    # Gone since the walk listed it: the worker writes a gated child's gate.json.tmp and renames it
                    # while the child starts (a slow start under load met that rename). Nothing left to hand over.
                    pass


def become_nobody(own_namespace=True):
    """Gives up root. Returns a description such as 'uid 65534 in its own user namespace (host uid 65534)'."""
    switched = switches_uid()
    if switched:
        try:
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
        except OSError as e:
            raise IdentityError(f"setresuid({NOBODY}): {e.strerror}") from e
    # Otherwise root only inside the worker's user namespace (or not root at all): the nested namespace maps 65534
    # to the uid the process has now, which is not root outside.
    host = _outer_uid(os.geteuid())
    if host == 0:
        raise IdentityError("uid 0 outside this user namespace, and uid 65534 is not mapped to give it up")
    if own_namespace or not switched:  # without setresuid, only a user namespace gives root up
        _own_user_namespace()
    if os.getuid() != NOBODY or os.getgid() != NOBODY:
        raise IdentityError(f"uid {os.getuid()} gid {os.getgid()} after the user namespace, expected {NOBODY}")
    where = "in its own user namespace" if own_namespace or not switched else "(no user namespace of its own)"
    return f"uid {NOBODY} {where} (uid {host} outside)"


def _outer_uid(uid):
    """The uid of the parent user namespace that `uid` of this one maps to (/proc/self/uid_map)."""
    try:
        with open("/proc/self/uid_map") as f:
            for line in f:
                inside, outside, count = (int(x) for x in line.split())
                if inside <= uid < inside + count:
                    return outside + (uid - inside)
    except (OSError, ValueError):
        pass
    return None


def drop_capabilities():
    """No capabilities in any set, and no way to regain them through exec (no_new_privs)."""

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise IdentityError("no_new_privs: " + os.strerror(ctypes.get_errno()))
    hdr = Header(0x20080522, 0)
    data = (Data * 2)()
    if _libc.syscall(SYS_CAPSET, ctypes.byref(hdr), ctypes.byref(data)) != 0:
        raise IdentityError("capabilities kept: " + os.strerror(ctypes.get_errno()))
    return "no capabilities, no_new_privs"
