"""A solution's build stage, run by the worker (or `kmosaic_harness build`): capture its load_inline calls in a
sandboxed child, then build each call missing from the store in a child that runs only torch's build, and publish
it (extcache.py). A compile error ends here, before anything of the solution runs on the device."""
import os
import time

from . import extcache, fastbuild, pch, spawn


def build_solution(cache_root, source, path, tools, limits, scratch, build_timeout_s, phase=lambda p: None):
    """Returns {"ok", "seconds", "calls": [{key, cached, seconds?, fast?}], "note"?} or, when a build failed,
    {"ok": False, "log", "generated", "timeout"?, ...}."""
    t0 = time.monotonic()
    phase("build: capture")
    cap = spawn.run_child(os.path.join(scratch, "capture"), [], dict(limits, timeout_s=min(120.0, limits["timeout_s"])),
                          True, extcache.capture_body(source, path))
    captured = (cap.get("result") or {}).get("calls")
    stage = {"ok": True, "calls": [], "seconds": 0.0}
    if ((cap.get("result") or {}).get("error") or {}).get("kind") == "sandbox":
        stage["sandbox_error"] = cap["result"]["error"]["message"]
        stage["seconds"] = time.monotonic() - t0
        return stage
    if cap["ended"] != "exit" or not isinstance(captured, list):
        # Not an error here: the measuring child runs the solution and reports what is wrong with it.
        stage["note"] = f"load_inline calls not captured ({cap['ended']}); the solution builds as it runs"
        stage["seconds"] = time.monotonic() - t0
        return stage
    if (cap.get("result") or {}).get("note"):
        stage["note"] = cap["result"]["note"]
    for i, call in enumerate(captured):
        k = extcache.key(call, tools)
        name = call.get("name", "")
        entry = extcache.entry_dir(cache_root, k)
        rec = {"key": k, "name": name, "cached": True}
        stage["calls"].append(rec)
        if extcache.library(entry, name):
            _touch(entry)
            continue
        phase(f"build: {name}")
        with extcache.Lock(cache_root, k):
            if extcache.library(entry, name):  # another builder finished it while this one waited
                continue
            rec["cached"] = False
            tmp = extcache.new_build_dir(cache_root, k)
            out = spawn.run_child(os.path.join(scratch, f"build{i}"), [tmp],
                                  dict(limits, timeout_s=max(float(build_timeout_s), float(limits["timeout_s"]))),
                                  False, _below_measuring(extcache.build_body(call, tmp, pch.pch_root(cache_root))))
            res = out.get("result") or {}
            if (res.get("error") or {}).get("kind") == "sandbox":
                stage["sandbox_error"] = res["error"]["message"]
                _remove(tmp)
                break
            rec["seconds"] = res.get("seconds", out["seconds"])
            rec["fast"] = res.get("fast") or fastbuild.report(tmp)
            if out["ended"] == "exit" and res.get("ok"):
                extcache.publish(cache_root, k, tmp)
                continue
            stage.update(ok=False, log=res.get("log") or out.get("log_tail", ""), generated=res.get("generated") or {},
                         ended=out["ended"])
            if out["ended"] == "timeout":
                stage["timeout"] = True
                stage["log"] = f"the build did not finish within {max(build_timeout_s, limits['timeout_s']):g} s\n" \
                    + stage["log"]
            _remove(tmp)
            break
    stage["seconds"] = time.monotonic() - t0
    return stage


def _below_measuring(body):
    """The build child compiles at a lower priority than the processes that measure (fastbuild.lower_priority)."""
    def work(report, phase):
        fastbuild.lower_priority()
        return body(report, phase)
    return work


def _touch(entry):
    try:
        os.utime(entry, None)
    except OSError:
        pass


def _remove(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)
