"""The build cache on disk: one folder per solution (keyed by the sha256 of its source), bounded in size.

Each verification marks the entry it used (its folder's time), and the worker evicts the least recently used entries
once the cache is over its bound. An entry in use is never removed: eviction skips entries used within the last
`grace_s` seconds, and a build in progress holds torch's lock file in its folder."""
import os
import shutil
import time

DEFAULT_MAX_BYTES = 20 << 30


def touch(entry):
    try:
        os.utime(entry, None)
    except OSError:
        pass


def _size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def _busy(entry):
    for root, _, files in os.walk(entry):
        if "lock" in files:
            return True
    return False


def evict(cache_root, max_bytes=DEFAULT_MAX_BYTES, grace_s=600, now=None):
    """Removes least recently used entries until the cache fits in max_bytes. Returns the removed entry names."""
    now = time.time() if now is None else now
    try:
        names = os.listdir(cache_root)
    except OSError:
        return []
    entries = []
    for name in names:
        path = os.path.join(cache_root, name)
        if not os.path.isdir(path) or os.path.islink(path):
            continue
        try:
            used = os.stat(path).st_mtime
        except OSError:
            continue
        entries.append((used, name, path, _size(path)))
    total = sum(e[3] for e in entries)
    removed = []
    for used, name, path, size in sorted(entries):
        if total <= max_bytes:
            break
        if now - used < grace_s or _busy(path):
            continue
        # Rename first, then delete: a reader never sees a half-removed entry under the live name.
        doomed = os.path.join(cache_root, f".evicting-{name}-{os.getpid()}")
        try:
            os.rename(path, doomed)
        except OSError:
            continue
        shutil.rmtree(doomed, ignore_errors=True)
        total -= size
        removed.append(name)
    return removed
