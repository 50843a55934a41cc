"""The reference child a worker starts before its request (spare.py), with a real fork, sandbox and reference
program on the CPU: it waits for its plan, runs it when released, and is refused (and killed) when the next
request's sandbox limits differ from the ones it was started with."""
import os
import shutil
import tempfile
import time
import unittest

from kmosaic_harness import spare

REFERENCE = """
import torch
import torch.nn as nn
N = 64
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2
def get_inputs():
    return [torch.randn(N, 8)]
def get_init_inputs():
    return []
"""


def _plan():
    return {"device": "cpu", "configs": [{"name": "small", "values": {"N": 16}}], "seeds": [11, 12], "init_seed": 5,
            "timing": {"config_index": 0, "seed": 13, "runs": 3, "warmup": 1}, "reference": REFERENCE, "threads": 1,
            "profile": False, "compile_baseline": False, "bytes_formula": "", "flops_formula": "", "copy_gbps": 1.0}


class SpareReference(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.limits = {"timeout_s": 60.0, "memory_mb": 4096, "file_mb": 64}
        self.spares = spare.Spares(self.root)

    def tearDown(self):
        self.spares.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def test_a_spare_waits_then_runs_the_plan_it_is_given(self):
        self.spares.refill(self.limits, device="cpu")
        self.spares.refill(self.limits, device="cpu")  # one waits already: no second
        self.assertEqual(len([d for d in os.listdir(self.root) if d.startswith("spare-")]), 1)
        time.sleep(0.3)
        child, folder = self.spares.take(dict(self.limits, timeout_s=30.0))
        self.assertIsNotNone(child)
        self.assertEqual(child.limits["timeout_s"], 30.0)  # the taking request's time limit
        self.assertEqual(self.spares.take(self.limits), (None, None))  # taken: gone
        child.release(_plan())
        out = child.wait()
        self.assertEqual(out["ended"], "exit", out)
        res = out["result"]
        self.assertNotIn("error", res, res)
        self.assertEqual([c["outputs"] for c in res["configs"]], [[{"shape": [16, 8], "dtype": "float32"}]])
        self.assertEqual(len(res["timing"]["event_ms"]), 3)
        self.assertTrue(os.path.exists(os.path.join(child.scratch, "ref_0_1.bin")))
        self.assertEqual([p[0] for p in res["phases"]][:2], ["start", "waiting for the plan"])
        self.assertTrue(folder.startswith(self.root))

    def test_a_spare_started_under_other_sandbox_limits_is_not_used(self):
        self.spares.refill(self.limits, device="cpu")
        pid = self.spares._child.pid
        child, folder = self.spares.take(dict(self.limits, file_mb=8))
        self.assertIsNone(child)
        self.assertFalse(os.path.exists(f"/proc/{pid}"), "the unsuitable spare was killed and reaped")
        self.assertEqual([d for d in os.listdir(self.root) if d.startswith("spare-")], [])

    def test_a_spare_that_died_is_not_used(self):
        self.spares.refill(self.limits, device="cpu")
        os.kill(self.spares._child.pid, 9)
        time.sleep(0.2)
        self.assertEqual(self.spares.take(self.limits), (None, None))


if __name__ == "__main__":
    unittest.main()
