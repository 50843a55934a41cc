"""One GPU shared by several workers (issue 5's batch pipeline): every process holds the GPU's lock shared while it
runs GPU work (reference and solution runs, output copies, comparisons) and exclusively while it measures (timed
runs, the launch floor, the profiler, Nsight Compute), so no other verification's kernels, copies or context start
overlap a timed run. What a verification does off the GPU (starting processes, loading a solution, reading
outputs back, building) overlaps the others freely.

Two flock(2) files per GPU: the lock itself, and a turnstile that an exclusive request holds while it waits, so a
stream of shared holders cannot starve a measurement. The files live in a folder every worker on the machine
agrees on (KMOSAIC_GPU_LOCK_DIR, else the temporary folder), named after the GPU the worker is pinned to
(CUDA_VISIBLE_DEVICES). A child opens its own descriptors before its sandbox hides that folder.
"""
import contextlib
import fcntl
import os
import re
import tempfile
import time

_path = None  # set by the worker (configure) when it verifies on a GPU; children inherit it
_fds = None  # (turnstile, lock) of this process
_held = None  # what this process holds now: None, fcntl.LOCK_SH or fcntl.LOCK_EX
_marker = None  # a file that exists while this process waits for the lock (its watcher does not count that time)
waited_s = 0.0  # seconds this process has waited for the lock


def default_path():
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip() or "all"
    name = re.sub(r"[^A-Za-z0-9_.,-]", "_", visible)[:120]
    folder = os.environ.get("KMOSAIC_GPU_LOCK_DIR") or tempfile.gettempdir()
    return os.path.join(folder, f"kmosaic-gpu-{name}.lock")


def configure(path):
    """The worker names the lock (None: no lock, as on the CPU) and opens it for itself; its children open their own."""
    global _path
    if path != _path or _fds is None:
        _path = path
        open_for_this_process()


def open_for_this_process(marker=None):
    """Opens this process's own descriptors (a forked child must not share the worker's: flock is per description).
    `marker`: the file that tells the watching worker this process waits for the GPU (spawn.Child)."""
    global _fds, _held, _marker, waited_s
    _marker, waited_s = marker, 0.0
    if _fds is not None:
        for fd in _fds:
            os.close(fd)  # in a child: its copies of the parent's descriptors (the same flock)
    _fds, _held = None, None
    if not _path:
        return
    try:
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        _fds = tuple(os.open(p, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666) for p in (_path + ".turn", _path))
    except OSError:
        _fds = None  # no lock folder: this worker runs as if it were alone on its GPU


def _set(kind):
    """Moves this process's hold to `kind` (None: none). A change releases first and queues through the turnstile,
    never converting in place: two holders converting at once would wait for each other."""
    global _held
    if _fds is None or kind == _held:
        return
    turn, lock = _fds
    if _held is not None:
        fcntl.flock(lock, fcntl.LOCK_UN)
        _held = None
    if kind is not None:
        _acquire(turn, fcntl.LOCK_EX)
        try:
            _acquire(lock, kind)
        finally:
            fcntl.flock(turn, fcntl.LOCK_UN)
        _held = kind


def _acquire(fd, kind):
    """flock, announcing a wait through the marker: a neighbour's long GPU work (a hung kernel holds the GPU until
    its own time limit) must not use up this process's time limit."""
    global waited_s
    try:
        fcntl.flock(fd, kind | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    t0 = time.monotonic()
    if _marker:
        try:
            with open(_marker, "w") as f:
                f.write("waiting for the GPU")
        except OSError:
            pass
    try:
        fcntl.flock(fd, kind)
    finally:
        if _marker:
            try:
                os.unlink(_marker)
            except OSError:
                pass
        waited_s += time.monotonic() - t0


@contextlib.contextmanager
def _hold(kind):
    before = _held
    _set(kind)
    try:
        yield
    finally:
        _set(before)


def shared():
    """GPU work that may run beside other verifications' GPU work, never beside a measurement. Inside an exclusive
    hold it keeps the exclusive one."""
    return _hold(fcntl.LOCK_EX if _held == fcntl.LOCK_EX else fcntl.LOCK_SH)


def exclusive():
    """A measurement: the GPU to itself (from a shared hold: released, queued, and shared again afterwards)."""
    return _hold(fcntl.LOCK_EX)


def off_gpu():
    """CPU and disk work inside a hold (loading a solution, reading outputs back): the GPU is free for the others
    meanwhile."""
    return _hold(None)
