"""identity.hand_over, the handing of a child's writable folders to uid 65534, against a folder that changes while it
walks: the worker writes a gated child's gate.json.tmp and renames it to gate.json while the child is still starting
(its sandbox slower under load), and a name the walk listed is gone when its turn comes. That must not stop the
child's sandbox ("the sandbox could not be set up: [Errno 2] ... gate.json.tmp", seen in CI under load)."""
import os
import tempfile
import unittest
from unittest import mock

from kmosaic_harness import identity


class HandOver(unittest.TestCase):
    def test_an_entry_renamed_during_the_walk_is_skipped_and_the_rest_handed_over(self):
        top = tempfile.mkdtemp(prefix="kmtest-handover-")
        for name in ("input.bin", "gate.json.tmp"):
            with open(os.path.join(top, name), "w") as f:
                f.write("x")
        owned = []
        real_lchown = os.lchown

        def lchown(path, uid, gid):
            if path.endswith("gate.json.tmp"):  # the worker's release renames it just before its turn
                os.replace(path, os.path.join(top, "gate.json"))
            if not os.path.lexists(path):
                raise FileNotFoundError(2, "No such file or directory", path)
            owned.append(os.path.basename(path))
            real_lchown(path, os.getuid(), os.getgid())  # no real change of owner in a test

        with mock.patch.object(identity, "switches_uid", return_value=True), \
                mock.patch.object(identity.os, "lchown", side_effect=lchown):
            identity.hand_over([top])  # raises nothing
        self.assertIn("input.bin", owned)
        self.assertIn(os.path.basename(top), owned)
        self.assertNotIn("gate.json.tmp", owned)

    def test_a_missing_top_folder_is_still_an_error(self):
        with mock.patch.object(identity, "switches_uid", return_value=True), \
                mock.patch.object(identity.os, "lchown", side_effect=FileNotFoundError(2, "No such file", "/x")):
            with self.assertRaises(FileNotFoundError):
                identity.hand_over(["/nonexistent/kmtest-folder"])


if __name__ == "__main__":
    unittest.main()
