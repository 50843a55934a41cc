"""Output files that name exported GPU memory instead of holding bytes (tensorio.write_exported, cudaipc): what the
judge accepts from the untrusted solution process before it opens anything. The GPU path itself (export in one
process, copy out in another, in the harness sandbox) runs on the H200: tests/gpu/round_repeat.sh and its corpus."""
import json
import os
import tempfile
import unittest

import torch

from kmosaic_harness import cudaipc, tensorio

HANDLE = "ab" * cudaipc.HANDLE_BYTES


def _write(path, metas):
    with open(path, "w") as f:
        f.write(json.dumps(metas) + "\n")


class ExportedOutputs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "sol_0_0.bin")

    def test_tensors_off_the_gpu_fall_back_to_a_file_with_their_bytes(self):
        ts = [torch.randn(3, 4), torch.arange(5)]
        tensorio.write_exported(self.path, ts)
        back = tensorio.read(self.path, 1 << 20)
        for a, b in zip(ts, back):
            self.assertTrue(torch.equal(a, b))
        self.assertFalse(os.path.exists(self.path + ".part"))
        self.assertEqual(cudaipc.kept_bytes(), 0, "nothing was exported")

    @unittest.skipIf(torch.cuda.is_available(), "a process with a GPU would try to open the handle")
    def test_a_process_without_a_gpu_refuses_exported_outputs(self):
        _write(self.path, [{"shape": [4], "dtype": "float32", "nbytes": 16, "ipc": {"handle": HANDLE, "offset": 0}}])
        with self.assertRaisesRegex(tensorio.FormatError, "no GPU"):
            tensorio.read(self.path, 1 << 20)

    def test_headers_are_checked_before_any_handle_is_opened(self):
        ipc = {"handle": HANDLE, "offset": 0}
        cases = {
            "tensor size does not match": [{"shape": [4], "dtype": "float32", "nbytes": 8, "ipc": ipc}],
            "exceed the limit": [{"shape": [1 << 20], "dtype": "float32", "nbytes": 4 << 20, "ipc": ipc}],
            "mixes exported and written": [{"shape": [4], "dtype": "float32", "nbytes": 16, "ipc": ipc},
                                           {"shape": [4], "dtype": "float32", "nbytes": 16}],
            "bad output header": [{"shape": [1], "dtype": "int8", "nbytes": 1, "ipc": ipc}] * (tensorio.MAX_TENSORS + 1),
        }
        for message, metas in cases.items():
            _write(self.path, metas)
            with self.subTest(message), self.assertRaisesRegex(tensorio.FormatError, message):
                tensorio.read(self.path, 1 << 20)

    def test_a_handle_is_64_bytes_in_hex(self):
        self.assertEqual(len(cudaipc.parse_handle(HANDLE)), 64)
        for bad in ("ab" * 63, "zz" * 64, 12, None, "ab" * 65):
            with self.subTest(bad=bad), self.assertRaises(cudaipc.IpcError):
                cudaipc.parse_handle(bad)

    def test_offsets_are_checked_before_a_handle_is_opened(self):
        with cudaipc.Opened() as opened:
            for bad in (-1, 1.5, "0", True):
                with self.subTest(offset=bad), self.assertRaisesRegex(cudaipc.IpcError, "offset"):
                    opened.copy_out(HANDLE, bad, 16)


if __name__ == "__main__":
    unittest.main()
