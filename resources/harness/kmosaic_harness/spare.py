"""A reference child started before its request (issue 5: a repeat verification under a second): after a
verification on the GPU the worker forks the next one's reference child, which makes its CUDA context and then
waits at its gate for a plan. The next verification on the GPU takes it instead of starting one, so the process,
sandbox and CUDA start (about half a second on the H200) are off its path. Runs in the worker."""
import os
import random
import shutil

from . import child_reference, sandbox, spawn


class Spares:
    def __init__(self, scratch_root):
        self.scratch_root = scratch_root
        self._child = None
        self._key = None
        self._folder = None

    @staticmethod
    def _sandbox_key(limits):
        # What the sandbox fixed at the fork (the file size limit, and whether there is a sandbox at all, with what it
        # lets the child see); time and memory are watched by the worker and follow the request that takes the child.
        return int(limits["file_mb"]), sandbox.POLICY["enabled"], tuple(sandbox.POLICY["readable"])

    def refill(self, limits, device="cuda"):
        """Forks a waiting reference child for the next verification on `device` (none if one waits already)."""
        if self._child is not None:
            return
        folder = os.path.join(self.scratch_root, f"spare-{os.getpid()}-{random.getrandbits(40):010x}")
        scratch = os.path.join(folder, "reference")
        try:
            self._child = spawn.start_child(scratch, [], dict(limits), False, child_reference.body(device, scratch),
                                            gated=True)
        except OSError:  # no room for a folder, no process to spare: the next verification starts its own
            shutil.rmtree(folder, ignore_errors=True)
            return
        self._key, self._folder = self._sandbox_key(limits), folder

    def take(self, limits):
        """The waiting child, if it suits these limits and still lives; the caller releases it and removes
        `folder` when done. (None, None) otherwise."""
        c, folder = self._child, self._folder
        if c is None:
            return None, None
        self._child = self._folder = None
        if self._key != self._sandbox_key(limits) or not _alive(c.pid):
            c.kill()
            shutil.rmtree(folder, ignore_errors=True)
            return None, None
        c.limits = dict(limits)
        return c, folder

    def close(self):
        if self._child is not None:
            self._child.kill()
            shutil.rmtree(self._folder, ignore_errors=True)
            self._child = self._folder = None


def _alive(pid):
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == 0
