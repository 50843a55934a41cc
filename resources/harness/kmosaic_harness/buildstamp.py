"""Skips a load_inline rebuild when nothing that goes into it changed.

torch 1.13's load_inline rewrites main.cpp on every call, so ninja recompiles in every new process even when the
build folder already holds the library. The harness wraps torch's build step: a stamp of the sources' contents and
the flags sits beside the library, and an identical build is not run again. Installed in the child before the
solution is imported; the build folder is the solution's own (keyed by its hash), so a stamp never crosses solutions.
"""
import hashlib
import inspect
import json
import os


def install():
    try:
        import torch.utils.cpp_extension as ce
    except ImportError:
        return
    original = getattr(ce, "_write_ninja_file_and_build_library", None)
    if original is None or getattr(original, "_kmosaic_stamped", False):
        return
    signature = inspect.signature(original)

    def stamped(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        build_dir = a.get("build_directory")
        name = a.get("name")
        key = _key(a)
        stamp = os.path.join(build_dir, ".kmosaic-build-stamp") if build_dir else ""
        library = os.path.join(build_dir, f"{name}.so") if build_dir else ""
        if key and stamp and os.path.exists(library):
            try:
                with open(stamp) as f:
                    if f.read() == key:
                        return None
            except OSError:
                pass
        result = original(*args, **kwargs)
        if key and stamp:
            with open(stamp, "w") as f:
                f.write(key)
        return result

    stamped._kmosaic_stamped = True
    ce._write_ninja_file_and_build_library = stamped


def _key(a):
    h = hashlib.sha256()
    try:
        for path in a.get("sources") or []:
            with open(path, "rb") as f:
                h.update(path.encode() + b"\0" + f.read() + b"\0")
    except OSError:
        return ""
    flags = {k: v for k, v in a.items() if k not in ("sources", "verbose")}
    h.update(json.dumps(flags, sort_keys=True, default=str).encode())
    return h.hexdigest()
