"""The sandbox of every child (sandbox.py, mountview.py, identity.py) as a hostile solution would try it, on the CPU:
host sockets, /proc/sys and /sys, the uid, processes that outlive the child, the worker's death, and the frozen
trusted snapshot. Opens for writing only to see whether it could: never writes to /proc/sys or /sys."""
import ctypes
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

from kmosaic_harness import lifeline, sandbox, spawn

LIMITS = {"timeout_s": 60, "memory_mb": 4096, "file_mb": 64}


def _sandbox_works():
    root = tempfile.mkdtemp(prefix="kmtest-probe-")
    os.chmod(root, 0o711)
    sandbox.configure(True, [root])
    out = spawn.run_child(os.path.join(root, "c"), [], LIMITS, False, lambda report, phase: {"ok": True})
    return out.get("result", {}).get("error", {}).get("message", "") if "ok" not in out.get("result", {}) else ""


WHY_NOT = _sandbox_works()


def _processes_named(tag):
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == tag:
                        found.append(int(pid))
            except OSError:
                continue
    return found


@unittest.skipIf(WHY_NOT, f"no sandbox on this machine: {WHY_NOT}")
class Sandbox(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="kmtest-sandbox-")
        os.chmod(self.root, 0o711)
        sandbox.configure(True, [self.root])

    def run_child(self, work):
        out = spawn.run_child(os.path.join(self.root, f"c{time.monotonic_ns()}"), [], LIMITS, False, work)
        self.assertEqual(out["ended"], "exit", out)
        self.assertNotIn("error", out.get("result", {}), out)
        return out["result"]

    def test_host_sockets_under_tmp_and_the_runtime_folder_are_unreachable(self):
        runtime = tempfile.mkdtemp(prefix="kmtest-xdg-", dir="/var/lib" if os.access("/var/lib", os.W_OK) else None)
        os.environ["XDG_RUNTIME_DIR"] = runtime
        servers, paths = [], [os.path.join(tempfile.gettempdir(), f"kmtest-{os.getpid()}.sock"),
                              os.path.join(runtime, "bus")]
        try:
            for p in paths:
                s = socket.socket(socket.AF_UNIX)
                s.bind(p)
                s.listen(4)
                os.chmod(p, 0o777)
                servers.append(s)

            def work(report, phase):
                tried = {}
                for p in paths:
                    c = socket.socket(socket.AF_UNIX)
                    try:
                        c.connect(p)
                        tried[p] = "connected"
                    except OSError as e:
                        tried[p] = e.strerror
                    finally:
                        c.close()
                return {"tried": tried, "isolation": report}

            res = self.run_child(work)
            for p in paths:
                self.assertNotEqual(res["tried"][p], "connected", f"{p} was reachable from the sandbox")
            # The same sockets are reachable from outside it: the test is not vacuous.
            for p in paths:
                c = socket.socket(socket.AF_UNIX)
                c.connect(p)
                c.close()
        finally:
            del os.environ["XDG_RUNTIME_DIR"]
            for s in servers:
                s.close()
            for p in paths:
                if os.path.exists(p):
                    os.unlink(p)
            os.rmdir(runtime)

    def test_kernel_knobs_are_read_only_and_the_child_is_not_root(self):
        def work(report, phase):
            from kmosaic_harness import mountview
            opts = {}
            with open("/proc/self/mountinfo") as f:
                for line in f:
                    parts = line.split()
                    opts[parts[4]] = parts[5]
            with open("/proc/self/status") as f:
                caps = [line.split()[1] for line in f if line.startswith("CapEff")]
            return {"writable": mountview.writable_probe(["/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger",
                                                          "/sys/kernel/profiling", "/etc/hostname"]),
                    "proc_sys": opts.get("/proc/sys", ""), "sys": opts.get("/sys", ""), "uid": os.getuid(),
                    "euid": os.geteuid(), "caps": caps, "pid": os.getpid(), "process": report["process"],
                    "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}

        res = self.run_child(work)
        self.assertEqual(res["writable"], [])
        self.assertTrue(res["proc_sys"].startswith("ro"), res)
        self.assertTrue(res["sys"].startswith("ro"), res)
        self.assertEqual((res["uid"], res["euid"]), (65534, 65534))
        self.assertEqual(res["caps"], ["0000000000000000"])
        # Its own PID namespace: the first process (which only waits for the work) and the work, nothing else.
        self.assertEqual(res["pid"], 2)
        self.assertEqual(res["processes"], [1, 2])
        self.assertIn("own PID namespace", res["process"])

    def test_a_double_forked_setsid_process_dies_with_the_child(self):
        tag = f"kmleft{os.getpid() % 100000}"

        def work(report, phase):
            first = os.fork()
            if first == 0:
                os.setsid()
                if os.fork() == 0:
                    ctypes.CDLL(None).prctl(15, tag.encode(), 0, 0, 0)
                    time.sleep(120)
                os._exit(0)
            os.waitpid(first, 0)
            from kmosaic_harness.trusted import Trusted
            deadline = time.monotonic() + 5
            while not _count_tag(tag) and time.monotonic() < deadline:
                time.sleep(0.05)
            return {"left": Trusted().processes()}

        res = self.run_child(work)
        self.assertEqual(res["left"], 1)  # the orphan is the child's own (it is its namespace's first process)
        self.assertEqual(_processes_named(tag), [], "the setsid process outlived its child")

    def test_a_sandbox_that_cannot_be_made_stops_the_child_before_its_work(self):
        from kmosaic_harness import identity
        real = identity.become_nobody
        identity.become_nobody = lambda **kw: (_ for _ in ()).throw(identity.IdentityError("no user namespace: test"))
        try:
            out = spawn.run_child(os.path.join(self.root, "refused"), [], LIMITS, False,
                                  lambda report, phase: {"ran": True})
        finally:
            identity.become_nobody = real
        self.assertEqual(out["result"]["error"]["kind"], "sandbox")
        self.assertIn("no user namespace", out["result"]["error"]["message"])
        self.assertNotIn("ran", out["result"])

    def test_without_the_sandbox_the_report_says_so(self):
        sandbox.configure(False, [self.root])
        res = self.run_child(lambda report, phase: {"isolation": report, "uid": os.getuid()})
        self.assertTrue(res["isolation"]["sandbox"].startswith("off"))


def _count_tag(tag):
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    n += f.read().strip() == tag
            except OSError:
                continue
    return n


class TrustedSnapshot(unittest.TestCase):
    def test_frames_reach_the_snapshot_but_cannot_change_it_unseen(self):
        from kmosaic_harness.trusted import Trusted
        T = Trusted()
        self.assertEqual(T.replaced(), [])
        with self.assertRaises(TypeError):
            vars(T)
        with self.assertRaises(AttributeError):
            T.perf_counter = lambda: 0.0
        self.assertIn("the harness's snapshot (perf_counter)", T.replaced())

    def test_a_code_swap_keeps_the_id_but_is_seen(self):
        import torch
        from kmosaic_harness.trusted import Trusted
        T = Trusted()
        fn = torch.cuda.synchronize
        code = fn.__code__
        fn.__code__ = (lambda device=None: None).__code__
        try:
            self.assertIn("torch.cuda.synchronize", T.replaced())
        finally:
            fn.__code__ = code


class Lifeline(unittest.TestCase):
    def test_the_worker_and_its_child_end_when_the_client_hangs_up(self):
        tag = f"kmlife{os.getpid() % 100000}"
        program = textwrap.dedent(f"""
            import ctypes, os, sys, tempfile, time
            from kmosaic_harness import lifeline, sandbox, spawn
            root = tempfile.mkdtemp(prefix="kmtest-life-"); os.chmod(root, 0o711)
            sandbox.configure(False, [root])
            lifeline.watch_client()
            def work(report, phase):
                ctypes.CDLL(None).prctl(15, b"{tag}", 0, 0, 0)
                time.sleep(120)
                return {{}}
            print("started", flush=True)
            spawn.run_child(os.path.join(root, "c"), [], {LIMITS!r}, False, work)
        """)
        p = subprocess.Popen([sys.executable, "-c", program], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
        self.assertEqual(p.stdout.readline().strip(), b"started")
        deadline = time.monotonic() + 30
        while not _processes_named(tag) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(_processes_named(tag), "the child never started")
        p.stdin.close()  # a client that has sent everything is not gone: it still reads
        time.sleep(0.5)  # (a fixed wait only to show the worker does NOT end: nothing is waited for here)
        self.assertIsNone(p.poll(), "the worker ended although its client still reads its output")
        p.stdout.close()  # the client goes away (as a SIGKILL of kmosaic closes its end of the pipe)
        self.assertEqual(p.wait(timeout=5), 75)
        deadline = time.monotonic() + 2
        while _processes_named(tag) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(_processes_named(tag), [], "the child outlived its worker")


if __name__ == "__main__":
    unittest.main()
