"""The worker forks its children after importing torch: nothing it does at start may touch the CUDA runtime, or
every child fails with "Cannot re-initialize CUDA in forked subprocess" (seen on the H200, 2026-12-02)."""
import os
import subprocess
import sys
import unittest
from unittest import mock

import torch

from kmosaic_harness import environment

HARNESS = os.path.dirname(os.path.dirname(environment.__file__))


class ForkSafety(unittest.TestCase):
    def test_the_entry_point_asks_nvml_before_torch_is_imported(self):
        code = ("import os, sys; sys.argv = ['kmosaic_harness', 'none'];"
                "import kmosaic_harness.__main__ as m;"
                "assert 'torch' not in sys.modules, 'torch imported before the check was chosen';"
                "print(os.environ.get('PYTORCH_NVML_BASED_CUDA_CHECK'))")
        env = {k: v for k, v in os.environ.items() if k != "PYTORCH_NVML_BASED_CUDA_CHECK"}
        env["PYTHONPATH"] = HARNESS
        out = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True, env=env, check=True)
        self.assertEqual(out.stdout.strip(), "1")

    def test_a_clean_process_forks_children_that_can_use_cuda(self):
        self.assertTrue(environment.fork_is_clean())

    def test_a_poisoned_process_is_detected(self):
        if not hasattr(torch.cuda, "_is_in_bad_fork"):
            self.skipTest("this torch has no fork check")
        with mock.patch.object(torch.version, "cuda", "12.0"), \
                mock.patch.object(torch.cuda, "_is_in_bad_fork", lambda: True):
            self.assertFalse(environment.fork_is_clean())

    def test_a_poisoned_worker_refuses_to_verify_with_a_clear_error(self):
        from kmosaic_harness import worker
        w = worker.Worker(channel=None, scratch_root="/tmp")
        w.env = {"cuda_usable": True, "cuda_fork_poisoned": True}
        reply = w.handle({"id": 7, "op": "verify"})
        self.assertEqual(reply["verdict"]["status"], "SYSTEM_ERROR")
        self.assertIn("touched CUDA before forking", reply["verdict"]["error"]["message"])

    def test_a_preload_that_poisons_forks_restarts_the_worker_without_it(self):
        code = ("import os, sys\n"
                "from unittest import mock\n"
                "from kmosaic_harness import environment, worker\n"
                "if os.environ.get(worker.NO_PRELOAD) == '1':\n"
                "    worker._preload_lazy_modules()\n"  # a no-op now: nothing may exec again
                "    print('restarted without the preload'); sys.exit(0)\n"
                "with mock.patch.object(environment, 'fork_is_clean', lambda: False):\n"
                "    worker._preload_lazy_modules()\n"
                "print('kept a poisoned worker')\n")
        env = {k: v for k, v in os.environ.items() if k != "KMOSAIC_HARNESS_NO_PRELOAD"}
        env["PYTHONPATH"] = HARNESS
        out = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "restarted without the preload")

    def test_a_clean_preload_keeps_the_worker(self):
        code = ("from kmosaic_harness import worker\n"
                "worker._preload_lazy_modules()\n"
                "print('kept')\n")
        env = {k: v for k, v in os.environ.items() if k != "KMOSAIC_HARNESS_NO_PRELOAD"}
        env["PYTHONPATH"] = HARNESS
        out = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(out.stdout.strip(), "kept", out.stderr)


if __name__ == "__main__":
    unittest.main()
