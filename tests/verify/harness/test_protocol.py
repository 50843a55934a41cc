"""The worker's protocol as docs/verifier.md states it: one JSON object per line, ids echoed, malformed requests
answered with an error while the worker goes on, nothing else on stdout, exit 0 after shutdown."""
import json
import os
import subprocess
import sys
import unittest


class Protocol(unittest.TestCase):
    def test_requests_errors_and_shutdown(self):
        env = dict(os.environ)
        p = subprocess.Popen([sys.executable, "-m", "kmosaic_harness", "worker"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        lines = [
            "this is not json",
            json.dumps([1, 2]),
            json.dumps({"id": 7, "op": "frobnicate"}),
            json.dumps({"id": 8, "op": "verify", "task": {}, "solution": {"source": ""}}),
            json.dumps({"id": 9, "op": "hello"}),
            json.dumps({"id": 10, "op": "shutdown"}),
        ]
        out, err = p.communicate("\n".join(lines) + "\n", timeout=120)
        self.assertEqual(p.returncode, 0, err)
        replies = [json.loads(line) for line in out.splitlines()]  # every stdout line is a JSON object
        self.assertEqual(len(replies), 6)
        self.assertFalse(replies[0]["ok"])
        self.assertEqual(replies[0]["error"]["code"], "bad_request")
        self.assertFalse(replies[1]["ok"])
        self.assertEqual((replies[2]["id"], replies[2]["ok"]), (7, False))
        self.assertIn("frobnicate", replies[2]["error"]["message"])
        self.assertEqual((replies[3]["id"], replies[3]["ok"]), (8, False))
        self.assertIn("task.reference", replies[3]["error"]["message"])
        self.assertEqual((replies[4]["id"], replies[4]["ok"], replies[4]["protocol"]), (9, True, 1))
        self.assertIn("torch", replies[4]["environment"])
        self.assertEqual((replies[5]["id"], replies[5]["ok"]), (10, True))


if __name__ == "__main__":
    unittest.main()
