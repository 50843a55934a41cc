"""The reference child a worker starts before its request (spare.py), with a real fork, sandbox and reference
program on the CPU: it waits for its plan, runs it when released, reports, then judges files written as a solution
child writes them; it is refused (and killed) when the next request's sandbox limits differ from the ones it was
started with."""
import os
import shutil
import tempfile
import time
import unittest

import torch

from kmosaic_harness import child_reference, sandbox, spare, tensorio

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


def _plan(solution_dir="/nonexistent-solution-dir"):
    return {"solution_dir": solution_dir, "judging": {"atol": 1e-4, "rtol": 1e-4, "file_mb": 64},
            "device": "cpu", "configs": [{"name": "small", "values": {"N": 16}}], "seeds": [11, 12], "init_seed": 5,
            "timing": {"config_index": 0, "seed": 13, "runs": 3, "warmup": 1}, "reference": REFERENCE, "threads": 1,
            "profile": False, "compile_baseline": False, "bytes_formula": "", "flops_formula": "", "copy_gbps": 1.0}


def _expected(seed, n):
    torch.manual_seed(seed)
    return torch.relu(torch.randn(n, 8)) * 2


class SpareReference(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        os.chmod(self.root, 0o711)  # as the worker's scratch root: sandboxed children (uid 65534) pass through
        sandbox.configure(True, [self.root])
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
        sol = os.path.join(self.root, "solution")
        plan = _plan(sol)
        child.release(plan)
        out = child.wait_report(child_reference.REPORT)
        self.assertEqual(out["ended"], "report", out)
        res = out["result"]
        self.assertNotIn("error", res, res)
        self.assertEqual([c["outputs"] for c in res["configs"]], [[{"shape": [16, 8], "dtype": "float32"}]])
        self.assertEqual(len(res["timing"]["event_ms"]), 3)
        self.assertEqual([p[0] for p in res["phases"]][:2], ["start", "waiting for the plan"])
        self.assertTrue(folder.startswith(self.root))

        # The solution's files, written while the reference child waits (it reads them ahead): seed 11 right (and
        # its re-run); seed 12 right at first, then replaced by a wrong one.
        os.makedirs(sol)
        right = {seed: _expected(seed, 16) for seed in (11, 12, 13)}
        tensorio.write(os.path.join(sol, "sol_0_0.bin"), [right[11]])
        tensorio.write(os.path.join(sol, "sol_0_0_rerun.bin"), [right[11]])
        tensorio.write(os.path.join(sol, "sol_0_1.bin"), [right[12]])  # right when read ahead ...
        trials = [{"config_index": 0, "seed_index": 0, "rerun": False}, {"config_index": 0, "seed_index": 0,
                  "rerun": True}, {"config_index": 0, "seed_index": 1, "rerun": False}]
        verdict = {"status": "PASSED", "checks": [], "trials": []}
        time.sleep(0.3)
        tensorio.write(os.path.join(sol, "sol_0_1.bin"), [right[12] + 1.0])  # ... wrong when the solution ends
        child.release({"verdict": verdict, "solution": {"trials": trials}, "partial": False})
        out = child.wait()
        self.assertEqual(out["ended"], "exit", out)
        judged = out["result"]["verdict"]
        self.assertEqual(judged["status"], "INCORRECT_NUMERICAL", judged)
        self.assertEqual([t["ok"] for t in judged["trials"]], [True, True, False])
        self.assertEqual(judged["failure"]["seed"], 12)
        self.assertIn("compare", [p[0] for p in out["result"]["phases"]])

    def test_a_reference_that_returns_no_tensor_ends_before_its_report(self):
        self.spares.refill(self.limits, device="cpu")
        child, _ = self.spares.take(self.limits)
        plan = _plan()
        plan["reference"] = REFERENCE.replace("return torch.relu(x) * 2", "return float(x.sum())")
        child.release(plan)
        out = child.wait_report(child_reference.REPORT)
        self.assertEqual(out["ended"], "exit", out)
        self.assertEqual(out["result"]["error"]["kind"], "contract")
        self.assertIn("returns float, not tensors", out["result"]["error"]["message"])

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
