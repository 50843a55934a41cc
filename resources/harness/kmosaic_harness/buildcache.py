"""The build cache on disk, bounded in size: the extension store (ext/, extcache.py), precompiled headers (pch/),
and one folder per solution for builds made while it ran (keyed by the sha256 of its source).

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


SPECIAL = ("ext", "pch", "locks", "tmp")


def _candidates(cache_root):
    """Evictable entries: the store's extensions (ext/<key>) and the per-solution folders of builds made while a
    solution ran. Precompiled headers, locks and builds in progress are never evicted."""
    out = []
    for base, prefix in ((cache_root, ""), (os.path.join(cache_root, "ext"), "ext/")):
        try:
            names = os.listdir(base)
        except OSError:
            continue
        out += [(prefix + n, os.path.join(base, n)) for n in names
                if not n.startswith(".") and not (base == cache_root and n in SPECIAL)]
    return out


def _sweep_abandoned(tmp_root, now, age_s=86400):
    """Build folders of builders that died (killed workers) never get published: removed after a day."""
    try:
        names = os.listdir(tmp_root)
    except OSError:
        return
    for name in names:
        path = os.path.join(tmp_root, name)
        try:
            if now - os.stat(path).st_mtime > age_s:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def evict(cache_root, max_bytes=DEFAULT_MAX_BYTES, grace_s=600, now=None):
    """Removes least recently used entries until the cache fits in max_bytes. Returns the removed entry names."""
    now = time.time() if now is None else now
    _sweep_abandoned(os.path.join(cache_root, "tmp"), now)
    entries = []
    for name, path in _candidates(cache_root):
        if not os.path.isdir(path) or os.path.islink(path):
            continue
        try:
            used = os.stat(path).st_mtime
        except OSError:
            continue
        entries.append((used, name, path, _size(path)))
    total = sum(e[3] for e in entries) + _size(os.path.join(cache_root, "pch"))  # counted, never evicted
    removed = []
    for used, name, path, size in sorted(entries):
        if total <= max_bytes:
            break
        if now - used < grace_s or _busy(path):
            continue
        # Rename first, then delete: a reader never sees a half-removed entry under the live name.
        doomed = os.path.join(cache_root, f".evicting-{name.replace('/', '-')}-{os.getpid()}")
        try:
            os.rename(path, doomed)
        except OSError:
            continue
        shutil.rmtree(doomed, ignore_errors=True)
        total -= size
        removed.append(name)
    return removed
