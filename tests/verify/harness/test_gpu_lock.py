"""The GPU lock that lets several workers share one GPU (gpulock.py), with real processes and real flock(2) files:
a measurement never overlaps another process's GPU work, and waiting measurements are not starved by shared
holders."""
import os
import tempfile
import time
import unittest

from kmosaic_harness import gpulock


def _in_child(steps):
    """Forks a process that opens its own descriptors and runs steps: [(kind, seconds)], kind in shared/exclusive.
    Each hold logs (name, start, end) into the returned pipe's read end."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        gpulock.open_for_this_process()
        for name, kind, seconds, delay in steps:
            time.sleep(delay)
            with getattr(gpulock, kind)():
                t0 = time.monotonic()
                time.sleep(seconds)
                t1 = time.monotonic()
            os.write(w, f"{name} {t0} {t1}\n".encode())
        os._exit(0)
    os.close(w)
    return pid, r


def _collect(children):
    spans = {}
    for pid, r in children:
        os.waitpid(pid, 0)
        with os.fdopen(r) as f:
            for line in f:
                name, t0, t1 = line.split()
                spans[name] = (float(t0), float(t1))
    return spans


def _overlap(a, b):
    return min(a[1], b[1]) - max(a[0], b[0]) > 0


class GpuLock(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        gpulock.configure(os.path.join(self.dir, "gpu.lock"))

    def tearDown(self):
        gpulock.configure(None)

    def test_shared_holders_overlap_and_a_measurement_overlaps_none(self):
        spans = _collect([
            _in_child([("a", "shared", 0.6, 0.0)]),
            _in_child([("b", "shared", 0.6, 0.05)]),
            _in_child([("m", "exclusive", 0.3, 0.2)]),
        ])
        self.assertTrue(_overlap(spans["a"], spans["b"]), spans)
        self.assertFalse(_overlap(spans["m"], spans["a"]), spans)
        self.assertFalse(_overlap(spans["m"], spans["b"]), spans)

    def test_a_waiting_measurement_goes_before_later_shared_requests(self):
        spans = _collect([
            _in_child([("first", "shared", 0.5, 0.0)]),
            _in_child([("m", "exclusive", 0.3, 0.15)]),
            _in_child([("late", "shared", 0.1, 0.3)]),  # asks while m waits for "first"
        ])
        self.assertGreaterEqual(spans["m"][0], spans["first"][1] - 0.01, spans)
        self.assertGreaterEqual(spans["late"][0], spans["m"][1] - 0.01, spans)

    def test_stepping_off_the_gpu_lets_a_measurement_in_and_the_hold_comes_back(self):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            gpulock.open_for_this_process()
            with gpulock.shared():
                with gpulock.off_gpu():
                    time.sleep(0.6)  # "writing outputs"
                os.write(w, f"{time.monotonic()}\n".encode())
            os._exit(0)
        os.close(w)
        time.sleep(0.15)
        m = _in_child([("m", "exclusive", 0.2, 0.0)])
        spans = _collect([m])
        os.waitpid(pid, 0)
        with os.fdopen(r) as f:
            back = float(f.read())
        self.assertLess(spans["m"][1], back + 0.01, "the measurement ran while the other stepped off")

    def test_a_measurement_inside_a_shared_hold_returns_to_shared(self):
        gpulock.open_for_this_process()
        with gpulock.shared():
            with gpulock.exclusive():
                self.assertEqual(gpulock._held, gpulock.fcntl.LOCK_EX)
                with gpulock.shared():  # stays exclusive: nothing may slip in mid-measurement
                    self.assertEqual(gpulock._held, gpulock.fcntl.LOCK_EX)
            self.assertEqual(gpulock._held, gpulock.fcntl.LOCK_SH)
        self.assertIsNone(gpulock._held)

    def test_without_a_lock_every_hold_is_free(self):
        gpulock.configure(None)
        with gpulock.exclusive():
            self.assertIsNone(gpulock._held)

    def test_the_lock_is_named_after_the_pinned_gpu(self):
        old = dict(os.environ)
        try:
            os.environ["CUDA_VISIBLE_DEVICES"] = "GPU-7c3f/../x"
            os.environ["KMOSAIC_GPU_LOCK_DIR"] = self.dir
            self.assertEqual(gpulock.default_path(), os.path.join(self.dir, "kmosaic-gpu-GPU-7c3f_.._x.lock"))
        finally:
            os.environ.clear()
            os.environ.update(old)


class WaitingIsNotTheChildsTime(unittest.TestCase):
    """A child's time limit does not run while it waits for the GPU (spawn.Child.wait reads its marker)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        gpulock.configure(os.path.join(self.dir, "gpu.lock"))
        self.limits = {"timeout_s": 1.0, "memory_mb": 4096, "file_mb": 16}

    def tearDown(self):
        gpulock.configure(None)

    def test_a_child_that_waits_for_a_measurement_is_not_timed_out(self):
        from kmosaic_harness import spawn
        holder = _in_child([("m", "exclusive", 2.0, 0.0)])  # a neighbour measures for 2 s
        time.sleep(0.2)

        def work(report, phase):
            with gpulock.shared():
                return {"ran": True}

        out = spawn.run_child(os.path.join(self.dir, "c"), [], self.limits, True, work)
        _collect([holder])
        self.assertEqual(out["ended"], "exit", out)
        self.assertTrue(out["result"]["ran"])
        self.assertGreater(out["result"]["gpu_wait_s"], 1.0)
        self.assertGreater(out["gpu_wait_credit_s"], 0.5)

    def test_a_faked_wait_buys_at_most_one_more_time_limit(self):
        from kmosaic_harness import child, spawn

        def work(report, phase):
            open(child.WAIT_MARKER, "w").close()  # in its scratch folder (its working directory)
            time.sleep(30)
            return {}

        out = spawn.run_child(os.path.join(self.dir, "f"), [], self.limits, True, work)
        self.assertEqual(out["ended"], "timeout")  # left alone it would have exited after 30 s
        # The marker was there all along: the deadline moved by exactly one time limit, no more.
        self.assertAlmostEqual(out["gpu_wait_credit_s"], self.limits["timeout_s"], places=3)


if __name__ == "__main__":
    unittest.main()
