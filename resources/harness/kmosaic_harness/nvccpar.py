"""nvcc with its host and device phases side by side (stdlib only: it runs as a command for every CUDA compile).

    python3 nvccpar.py [--report FILE] [--no-rerun-on-error] --nvcc /path/to/nvcc -- <nvcc arguments>

nvcc compiles one architecture strictly in sequence: host preprocessing, cudafe++ (host front end), device
preprocessing, cicc, ptxas, fatbinary, then the host compile of cudafe++'s output, which includes cicc's stub and the
fatbinary. The only thing the device chain takes from the host chain is the module id file that cudafe++ writes
(--gen_module_id_file) and cicc reads: a per-source identifier such as `_a5c777b9_4_k_cu_909fc9a3` that names the
source's anonymous namespace and internal device symbols. Here that file is written first (same shape: CRC-32 of the
source's path, its name, and a hash of its contents and of the arguments), cudafe++ is told to read it instead of
writing one, and the two chains run at once; the final host compile follows. With nvcc's own id the object comes out
byte for byte as nvcc's (checked by hand with CUDA 13.0, see tests/verify/harness/test_nvcc_parallel.py).

The steps are nvcc's own (`nvcc <arguments> -dryrun`), run through /bin/sh with the variables nvcc sets, their
temporaries in a private folder (TMPDIR during the dry run). Anything but exactly one architecture compiled whole
(several architectures, -rdc, -E, --keep, -v, an unknown step, a message from nvcc itself), or a failing step,
or anything unexpected: plain nvcc runs instead (exec), so errors come out as nvcc prints them, with its status.
--no-rerun-on-error: a failing step ends the run with that step's status and what the steps printed (for builds
whose errors are discarded anyway, such as fastbuild's light-header attempt).
On success what the steps printed is written in nvcc's order (stdout and stderr kept apart), and the status is 0.
--report FILE (or KMOSAIC_NVCC_PARALLEL_REPORT): one JSON line per run is appended: mode (parallel / fallback /
failed), reason, step timings. KMOSAIC_NVCC_PARALLEL=0: always plain nvcc."""
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_FILTER = "-- Filter Dependencies -- > "
# Arguments whose builds are not the one shape handled here (checked as whole words or `--opt=...`).
_REFUSED = {
    "-E", "--preprocess", "-M", "-MM", "-MMD", "-MT", "-MP", "--generate-dependencies",
    "--generate-nonsystem-dependencies", "--generate-nonsystem-dependencies-with-compile",
    "--dependency-target-name", "--generate-dependency-targets", "-rdc", "--relocatable-device-code", "-dc",
    "--device-c", "-dw", "--device-w", "-dlto", "--dlink-time-opt", "-dlink", "--device-link", "-lib", "--lib",
    "-link", "--link", "-run", "--run", "-keep", "--keep", "-keep-dir", "--keep-dir", "-save-temps",
    "--save-temps", "-dryrun", "--dryrun", "-v", "--verbose", "-ptx", "--ptx", "-cubin", "--cubin", "-fatbin",
    "--fatbin", "-optix-ir", "--optix-ir", "-cuda", "--cuda", "-odir", "--output-directory", "-time", "--time",
    "-fdevice-time-trace", "--fdevice-time-trace", "-ltoir", "--ltoir", "-lto", "--lto",
}
_TOOLS = {"cudafe++": "cudafe", "cicc": "cicc", "ptxas": "ptxas", "fatbinary": "fatbinary", "rm": "rm"}


class Unsupported(Exception):
    """The build is not the shape run here: plain nvcc runs instead."""


def refused_argument(args):
    for a in args:
        if a in _REFUSED or a.split("=", 1)[0] in _REFUSED:
            return a
        if a.startswith("-rdc") or a.startswith("--relocatable-device-code"):
            return a
    return None


def parse_dryrun(text):
    """(environment assignments, step command lines) from `nvcc -dryrun` output; Unsupported for other lines."""
    env, steps = {}, []
    for line in text.splitlines():
        if not line.startswith("#$ "):
            if line.strip():
                raise Unsupported(f"nvcc printed: {line[:200]}")
            continue
        body = line[3:]
        m = _ASSIGN.match(body)
        if m and not steps:
            env[m.group(1)] = m.group(2)
        elif m:
            raise Unsupported(f"assignment after the first step: {body[:200]}")
        else:
            steps.append(body)
    return env, steps


def _value(tokens, option):
    vals = [tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t == option]
    if len(vals) != 1:
        raise Unsupported(f"{option} given {len(vals)} times")
    return vals[0]


def classify(body):
    if body.startswith(_FILTER):
        return "deps", [body[len(_FILTER):].strip()]
    try:
        tokens = shlex.split(body)
    except ValueError as e:
        raise Unsupported(f"unparsable step ({e}): {body[:200]}")
    if not tokens:
        raise Unsupported("empty step")
    name = os.path.basename(tokens[0])
    if name in _TOOLS:
        return _TOOLS[name], tokens
    if "-E" in tokens:
        return ("dev_pp" if any(t.startswith("-D__CUDA_ARCH__=") for t in tokens) else "host_pp"), tokens
    if "-c" in tokens:
        return "final", tokens
    raise Unsupported(f"unknown step: {body[:200]}")


def plan(steps, tmpdir):
    """Checks that the steps are the single-architecture whole-program compile; returns {kind: (index, body, tokens)}."""
    found = {}
    for i, body in enumerate(steps):
        kind, tokens = classify(body)
        if kind in found:
            raise Unsupported(f"more than one {kind} step (several architectures?)")
        found[kind] = (i, body, tokens)
    need = ["host_pp", "cudafe", "dev_pp", "cicc", "fatbinary", "rm", "final"]
    missing = [k for k in need if k not in found]
    if missing:
        raise Unsupported(f"no {', '.join(missing)} step")
    pos = {k: v[0] for k, v in found.items()}
    order = [("host_pp", "cudafe"), ("dev_pp", "cicc"), ("cicc", "fatbinary"), ("fatbinary", "rm"),
             ("cudafe", "final"), ("rm", "final")]
    if "ptxas" in found:
        order += [("cicc", "ptxas"), ("ptxas", "fatbinary")]
    if "deps" in found:
        order += [("dev_pp", "deps"), ("deps", "final")]
    for a, b in order:
        if pos[a] > pos[b]:
            raise Unsupported(f"{a} after {b}")
    if pos["final"] != len(steps) - 1:
        raise Unsupported("the host compile is not the last step")
    tok = {k: v[2] for k, v in found.items()}
    if not (tok["host_pp"][0] == tok["dev_pp"][0] == tok["final"][0]):
        raise Unsupported("different host compilers")
    for k in ("ptxas", "fatbinary", "cicc", "cudafe"):
        if k in tok and any(t in ("--compile-only", "--device-c", "-rdc") or t.startswith("--cmdline=--compile-only")
                            for t in tok[k]):
            raise Unsupported(f"relocatable device code ({k})")
    cudafe = tok["cudafe"]
    if cudafe.count("--gen_module_id_file") != 1 or found["cudafe"][1].count(" --gen_module_id_file ") != 1:
        raise Unsupported("cudafe++ without one --gen_module_id_file")
    module_id_file = _value(cudafe, "--module_id_file_name")
    if _value(tok["cicc"], "--module_id_file_name") != module_id_file:
        raise Unsupported("cicc reads another module id file")
    host_ii, dev_ii = _value(tok["host_pp"], "-o"), _value(tok["dev_pp"], "-o")
    if cudafe[-1] != host_ii:
        raise Unsupported("cudafe++ does not read the host preprocessing")
    if dev_ii not in tok["cicc"]:
        raise Unsupported("cicc does not read the device preprocessing")
    gen_cpp = _value(cudafe, "--gen_c_file_name")
    if gen_cpp not in tok["final"]:
        raise Unsupported("the host compile does not read cudafe++'s output")
    stub = _value(cudafe, "--stub_file_name")
    if os.path.join(os.path.dirname(gen_cpp), stub) != _value(tok["cicc"], "--stub_file_name"):
        raise Unsupported("cicc writes the stub elsewhere")
    inner = os.path.realpath(tmpdir) + os.sep
    if len(tok["rm"]) < 2 or any(t.startswith("-") for t in tok["rm"][1:]):
        raise Unsupported("an rm step of another shape")
    for path in (module_id_file, host_ii, dev_ii, gen_cpp, _value(tok["cicc"], "-o"), *tok["rm"][1:]):
        if not os.path.realpath(path).startswith(inner):
            raise Unsupported(f"a temporary outside the private folder: {path}")
    for k, (_, _, tokens) in found.items():
        for t in tokens:
            if "tmpxft" in t and os.path.isabs(t.split("=")[-1]) and \
                    not os.path.realpath(t.split("=")[-1]).startswith(inner):
                raise Unsupported(f"a temporary outside the private folder: {t}")
    return found


def module_id(src_path, src_name, source_bytes, args):
    """An identifier in nvcc's shape: _<crc32 of the path>_<length of the name>_<name>_<hash of contents and args>."""
    base = os.path.basename(src_name)
    digest = hashlib.sha256(b"kmosaic-nvccpar\0" + source_bytes + b"\0" + "\0".join(args).encode(
        "utf-8", "surrogateescape")).hexdigest()[:8]
    return f"_{zlib.crc32(src_path.encode('utf-8', 'surrogateescape')):08x}_{len(base)}_" \
           f"{re.sub(r'[^A-Za-z0-9_]', '_', base)}_{digest}"


_MARKER = re.compile(rb'^# \d+ "([^"\n]*)"', re.M)


def dependencies(target, ii_path):
    """nvcc's --generate-dependencies-with-compile file: the files named by the device preprocessing's line markers,
    first appearance first, <built-in> and <command-line> left out."""
    with open(ii_path, "rb") as f:
        data = f.read()
    seen, names = set(), []
    for m in _MARKER.finditer(data):
        name = m.group(1)
        if name in seen:
            continue
        seen.add(name)
        if name.startswith(b"<"):
            continue
        if b"\\" in name or b" " in name:
            raise Unsupported(f"a dependency name nvcc may write otherwise: {name[:200]!r}")
        names.append(name.decode("utf-8", "surrogateescape"))
    if not names:
        raise Unsupported("no line markers in the device preprocessing")
    return f"{target} : " + " \\\n    ".join(names) + "\n"


def _kill_descendants(passes=2):
    """SIGKILL to every process below this one (the steps, their shells, the compilers they started)."""
    me = os.getpid()
    for n in range(passes):  # a second pass for what started while the first one ran
        if n:
            time.sleep(0.02)
        for pid in reversed(_descendants(me)):
            if pid != me:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def _descendants(pid):
    """pid and the processes below it, parents first. From /proc/*/stat (the per-task `children` files are missing
    on some kernels, gVisor's among them)."""
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        out.append(p)
        todo.extend(kids.get(p, ()))
    return out


class Runner:
    def __init__(self, env):
        self.env = env
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.results = {}  # step index -> (rc, stdout, stderr, seconds)
        self.first_failure = None  # the step that failed first (later ones may have been killed for it)

    def kill_all(self):
        """Stops the run: no step starts any more, and every process below this one is killed."""
        self.stop.set()
        with self.lock:  # a step being started is started (and visible below) before this goes on
            _kill_descendants()

    def run(self, index, command):
        t0 = time.perf_counter()
        with self.lock:  # a step starts only while no stop was asked for
            if self.stop.is_set():
                return False
            proc = subprocess.Popen(["/bin/sh", "-c", command], env=self.env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = proc.communicate()
        return self._done(index, proc.returncode, out, err, t0)

    def _done(self, index, rc, out, err, t0):
        with self.lock:
            self.results[index] = (rc, out, err, time.perf_counter() - t0)
            if rc != 0 and self.first_failure is None and not self.stop.is_set():
                self.first_failure = index
            if rc != 0:
                self.stop.set()
        return rc == 0

    def chain(self, items):
        """items: (index, command) or (index, callable). Stops at the first failure or when told to stop."""
        for index, what in items:
            if not callable(what):
                if not self.run(index, what):
                    return False
                continue
            if self.stop.is_set():
                return False
            t0 = time.perf_counter()
            try:
                what()
            except Unsupported as e:
                return self._done(index, "unsupported", b"", str(e).encode(), t0)
            except Exception as e:  # noqa: B902 - any problem here means: plain nvcc
                return self._done(index, "error", b"", repr(e).encode(), t0)
            self._done(index, 0, b"", b"", t0)
        return True


class _Report:
    def __init__(self, path):
        self.path = path
        self.data = {"mode": None, "pid": os.getpid(), "cwd": os.getcwd()}
        self.t0 = time.perf_counter()

    def write(self, mode, **kw):
        self.data.update(kw, mode=mode, seconds=round(time.perf_counter() - self.t0, 4))
        if not self.path:
            return
        try:
            with open(self.path, "a") as f:
                f.write(json.dumps(self.data) + "\n")
        except OSError:
            pass


def _exec_nvcc(nvcc, args, report, reason):
    report.write("fallback", reason=str(reason)[:500])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(nvcc, [nvcc] + args)


def parallel(nvcc, args, tmpdir, report, rerun_on_error=True):
    """Runs the compile; returns the exit status, or raises Unsupported (plain nvcc is wanted)."""
    env = dict(os.environ)
    env["TMPDIR"] = tmpdir
    dry = subprocess.run([nvcc] + args + ["-dryrun"], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if dry.returncode != 0:
        raise Unsupported(f"nvcc -dryrun exited {dry.returncode}")
    text = (dry.stdout + dry.stderr).decode("utf-8", "surrogateescape")
    assigns, steps = parse_dryrun(text)
    found = plan(steps, tmpdir)
    step_env = dict(os.environ)
    step_env.update(assigns)
    step_env["TMPDIR"] = tmpdir  # the tools' own temporaries (gcc's .s, cicc's .bc) go where a kill leaves none

    cudafe_tokens = found["cudafe"][2]
    src_path = _value(cudafe_tokens, "--orig_src_path_name")
    src_name = _value(cudafe_tokens, "--orig_src_file_name")
    try:
        with open(src_path, "rb") as f:
            source = f.read()
    except OSError as e:
        raise Unsupported(f"cannot read the source: {e}")
    # KMOSAIC_NVCC_PARALLEL_MODULE_ID: a test hook (give nvcc's own id and the object comes out as nvcc's).
    mid = os.environ.get("KMOSAIC_NVCC_PARALLEL_MODULE_ID") or module_id(src_path, src_name, source, args)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", mid):
        raise Unsupported(f"not an identifier: {mid!r}")
    with open(_value(cudafe_tokens, "--module_id_file_name"), "w") as f:
        f.write(mid)
    report.data["module_id"] = mid

    commands = {i: body for i, body in enumerate(steps)}
    ci, cbody, _ = found["cudafe"]
    commands[ci] = cbody.replace(" --gen_module_id_file ", " ", 1)
    deps_text = {}
    host = [(found[k][0], commands[found[k][0]]) for k in ("host_pp", "cudafe")]
    device = [(found["dev_pp"][0], commands[found["dev_pp"][0]])]
    if "deps" in found:
        target = _value(found["final"][2], "-o")
        dev_ii = _value(found["dev_pp"][2], "-o")
        deps_file = found["deps"][2][0]

        def filter_deps():
            deps_text[deps_file] = dependencies(target, dev_ii)
        device.append((found["deps"][0], filter_deps))
    device += [(found[k][0], commands[found[k][0]]) for k in ("cicc", "ptxas", "fatbinary") if k in found]
    doomed = found["rm"][2][1:]

    def remove():  # nvcc does this one itself (no process), and a missing file is no error
        for path in doomed:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass
    device.append((found["rm"][0], remove))

    runner = Runner(step_env)
    _RUNNERS.append(runner)
    box = {}

    def device_chain():
        try:
            box["ok"] = runner.chain(device)
        except BaseException as e:  # noqa: B902 - reported below; plain nvcc runs
            box["error"] = e
        if not box.get("ok"):
            runner.kill_all()

    thread = threading.Thread(target=device_chain, name="nvccpar-device", daemon=True)
    thread.start()
    host_ok = False
    try:
        host_ok = runner.chain(host)
    finally:
        if not host_ok:
            runner.kill_all()
        thread.join()
    if "error" in box:
        raise Unsupported(f"device chain: {box['error']!r}")
    ok = host_ok and box.get("ok") and runner.chain([(found["final"][0], commands[found["final"][0]])])
    report.data["steps"] = [{"step": classify(steps[i])[0], "rc": r[0], "seconds": round(r[3], 4)}
                            for i, r in sorted(runner.results.items())]
    if not ok:
        first = runner.first_failure
        rc = runner.results[first][0] if first is not None else None
        why = f"{classify(steps[first])[0]} rc={rc}" if first is not None else "stopped"
        if not isinstance(rc, int) or rerun_on_error:
            detail = runner.results[first][2][-300:] if first is not None and not isinstance(rc, int) else b""
            raise Unsupported(f"step failed: {why} {detail.decode('utf-8', 'replace')}".rstrip())
        # What nvcc would have printed up to the failure: the steps before it in nvcc's order that ended normally.
        _emit({i: r for i, r in runner.results.items() if i <= first and (r[0] == 0 or i == first)})
        report.write("failed", reason=f"step failed: {why}")
        return rc if 0 < rc < 256 else 1
    for path, text in deps_text.items():
        with open(path, "w") as f:
            f.write(text)
    _emit(runner.results)
    report.write("parallel", reason="")
    return 0


def _emit(results):
    for i in sorted(results):
        _, out, err, _ = results[i]
        if out:
            sys.stdout.buffer.write(out)
            sys.stdout.buffer.flush()
        if err:
            sys.stderr.buffer.write(err)
            sys.stderr.buffer.flush()


_RUNNERS = []
_TMPDIRS = []


def _on_signal(signum, frame):
    for r in _RUNNERS:
        r.stop.set()
    _kill_descendants(passes=3)  # not through Runner.kill_all: this thread may hold its lock
    for d in _TMPDIRS:
        shutil.rmtree(d, ignore_errors=True)
    os._exit(128 + signum)


def main(argv):
    report_path = os.environ.get("KMOSAIC_NVCC_PARALLEL_REPORT") or None
    nvcc, rerun = None, True
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--nvcc" and i + 1 < len(argv):
            nvcc, i = argv[i + 1], i + 2
        elif argv[i] == "--report" and i + 1 < len(argv):
            report_path, i = argv[i + 1], i + 2
        elif argv[i] == "--no-rerun-on-error":
            rerun, i = False, i + 1
        else:
            sys.stderr.write(f"nvccpar: unknown option {argv[i]!r}\n"
                             "usage: nvccpar.py [--report FILE] [--no-rerun-on-error] --nvcc NVCC -- ARGS...\n")
            return 2
    if nvcc is None or i >= len(argv):
        sys.stderr.write("usage: nvccpar.py [--report FILE] [--no-rerun-on-error] --nvcc NVCC -- ARGS...\n")
        return 2
    args = argv[i + 1:]
    report = _Report(report_path)
    report.data["args"] = args
    if os.environ.get("KMOSAIC_NVCC_PARALLEL", "1") == "0":
        _exec_nvcc(nvcc, args, report, "KMOSAIC_NVCC_PARALLEL=0")
    bad = refused_argument(args)
    if bad:
        _exec_nvcc(nvcc, args, report, f"argument {bad}")
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    tmpdir = None
    try:
        tmpdir = tempfile.mkdtemp(prefix="nvccpar-")
        _TMPDIRS.append(tmpdir)
        rc = parallel(nvcc, args, tmpdir, report, rerun_on_error=rerun)
    except Unsupported as e:
        reason = e
    except Exception as e:  # noqa: B902 - whatever went wrong, nvcc itself decides
        reason = f"unexpected: {e!r}"
    else:
        shutil.rmtree(tmpdir, ignore_errors=True)
        return rc
    if tmpdir:
        shutil.rmtree(tmpdir, ignore_errors=True)
    _exec_nvcc(nvcc, args, report, reason)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
