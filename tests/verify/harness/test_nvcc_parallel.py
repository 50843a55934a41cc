"""nvccpar.py: nvcc's host and device phases side by side, plain nvcc for anything else; fastbuild's build.ninja line.

The sources here include no torch header, so each compile takes a second or two. They need CUDA's nvcc and a host
compiler nvcc accepts (the tests are skipped without /usr/local/cuda/bin/nvcc); no GPU."""
import inspect
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

from kmosaic_harness import fastbuild, nvccpar

NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
HAVE_NVCC = os.path.isfile(NVCC) and os.access(NVCC, os.X_OK)
NO_NVCC = f"no CUDA compiler at {NVCC}"
SCRIPT = os.path.abspath(nvccpar.__file__)

KERNEL = r"""#include <cstdio>
namespace { __device__ int counter; }
static __device__ float twice(float v) { return 2.f * v; }
__global__ void add_kernel(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] += twice(x[i]); atomicAdd(&counter, 1); }
}
static __global__ void mark(float* y) { y[0] = 1.f; }
extern "C" int launch_add(float* y, const float* x, int n) {
  add_kernel<<<(n + 255) / 256, 256>>>(y, x, n);
  mark<<<1, 1>>>(y);
  return (int)cudaGetLastError();
}
"""
# As torch's build.ninja passes them (the quoted defines come through /bin/sh as -DNAME="value").
FLAGS = ['-DTORCH_EXTENSION_NAME=km_test', '-DPYBIND11_COMPILER_TYPE="_gcc"', "-D__CUDA_NO_HALF_OPERATORS__",
         "--expt-relaxed-constexpr", "-gencode=arch=compute_90,code=sm_90", "--compiler-options", "-fPIC", "-O3",
         "--use_fast_math", "-std=c++17"]


def run(cmd, cwd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(cmd, cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def elf_sections(path):
    """{name: bytes} of an ELF64 little-endian relocatable object, and its symbols (name, value, size, info, other,
    shndx) without the FILE ones (they name the temporary file compiled)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx]

    def name_at(table, off):
        start = table[4] + off
        return data[start:data.index(b"\0", start)].decode()

    sections, symbols = {}, []
    for h in heads[1:]:
        name = name_at(strtab, h[0])
        body = b"" if h[1] == 8 else data[h[4]:h[4] + h[5]]  # SHT_NOBITS has no bytes
        sections[name] = body
        if h[1] == 2:  # SHT_SYMTAB
            names = heads[h[6]]
            for off in range(0, h[5], 24):
                st_name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, h[4] + off)
                if info & 0xF != 4:  # STT_FILE
                    symbols.append((name_at(names, st_name), value, size, info, other, shndx))
    return sections, symbols


def nm_sets(obj, ids=()):
    out = subprocess.run(["nm", obj], stdout=subprocess.PIPE, check=True).stdout.decode()
    for i in ids:
        out = out.replace(i, "<module-id>")
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3:
            defined.add((parts[1], parts[2]))
    return defined, undefined


def links(obj, out):
    lib = os.path.join(os.path.dirname(os.path.dirname(NVCC)), "lib64")
    r = subprocess.run(["g++", "-shared", "-o", out, obj, f"-L{lib}", "-lcudart", "-Wl,--no-undefined"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode == 0 and os.path.getsize(out) > 0, r.stderr.decode()


@unittest.skipUnless(HAVE_NVCC, NO_NVCC)
class NvccParallel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="km-nvccpar-test-")
        cls.tmp = os.path.join(cls.dir, "tmp")  # TMPDIR of the nvccpar runs: must be empty after each
        os.makedirs(cls.tmp)
        with open(os.path.join(cls.dir, "k.cu"), "w") as f:
            f.write(KERNEL)
        r = run([NVCC] + FLAGS + ["-c", "k.cu", "-o", "ref.o"], cls.dir)
        assert r.returncode == 0, r.stderr.decode()
        cls.ref = os.path.join(cls.dir, "ref.o")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def par(self, args, cwd=None, env=None, extra=()):
        """Runs nvccpar; returns (completed process, its report)."""
        report = os.path.join(self.dir, "report.jsonl")
        if os.path.exists(report):
            os.remove(report)
        e = {"TMPDIR": self.tmp}
        e.update(env or {})
        r = run([sys.executable, SCRIPT, "--report", report, *extra, "--nvcc", NVCC, "--"] + args, cwd or self.dir, e)
        with open(report) as f:
            lines = [json.loads(x) for x in f]
        self.assertEqual(len(lines), 1)
        self.assertEqual(os.listdir(self.tmp), [], "temporaries left behind")
        return r, lines[0]

    def test_parallel_object_defines_and_needs_what_nvccs_does_and_links(self):
        r, rep = self.par(FLAGS + ["-c", "k.cu", "-o", "par.o"])
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(rep["mode"], "parallel", rep)
        self.assertEqual([s["step"] for s in rep["steps"]],
                         ["host_pp", "cudafe", "dev_pp", "cicc", "ptxas", "fatbinary", "rm", "final"])
        par = os.path.join(self.dir, "par.o")
        nm_ref = subprocess.run(["nm", self.ref], stdout=subprocess.PIPE).stdout.decode()
        ref_ids = set(re.findall(r"_GLOBAL__N_(_[0-9a-f]{8}_4_k_cu_[0-9a-f]{8})", nm_ref))
        self.assertEqual(len(ref_ids), 1, ref_ids)
        self.assertEqual(nm_sets(self.ref, ref_ids), nm_sets(par, [rep["module_id"]]))
        defined, undefined = nm_sets(par)
        self.assertIn(("T", "launch_add"), defined)
        self.assertIn("__cudaRegisterFatBinary", undefined)
        sections, _ = elf_sections(par)
        self.assertGreater(len(sections.get(".nv_fatbin", b"")), 1000)
        self.assertIn(b"add_kernel", sections[".nv_fatbin"])
        for obj in (self.ref, par):
            ok, err = links(obj, obj + ".so")
            self.assertTrue(ok, err)

    def test_with_nvccs_module_id_the_object_is_nvccs(self):
        keep = os.path.join(self.dir, "keep")
        os.makedirs(keep, exist_ok=True)
        r = run([NVCC] + FLAGS + ["-c", "k.cu", "-o", "keep.o", "--keep", "--keep-dir", keep], self.dir)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(os.path.join(keep, "k.module_id")) as f:
            nvcc_id = f.read()
        r, rep = self.par(FLAGS + ["-c", "k.cu", "-o", "same.o"], env={"KMOSAIC_NVCC_PARALLEL_MODULE_ID": nvcc_id})
        self.assertEqual(rep["mode"], "parallel", rep)
        self.assertEqual(rep["module_id"], nvcc_id)
        ref_sections, ref_symbols = elf_sections(self.ref)
        sections, symbols = elf_sections(os.path.join(self.dir, "same.o"))
        self.assertEqual(sorted(ref_sections), sorted(sections))
        # Only the string table differs: it names the temporary file compiled (tmpxft_<pid>_...), as between
        # two runs of nvcc itself.
        for name in ref_sections:
            if name not in (".strtab", ".symtab"):
                self.assertEqual(ref_sections[name], sections[name], name)
        self.assertEqual(ref_symbols, symbols)

    def test_own_module_id_is_an_identifier_in_nvccs_shape_and_stable(self):
        a = nvccpar.module_id("/x/y/k.cu", "k.cu", b"int x;", ["-c", "k.cu"])
        self.assertRegex(a, r"^_[0-9a-f]{8}_4_k_cu_[0-9a-f]{8}$")
        self.assertTrue(a.startswith("_%08x_" % zlib.crc32(b"/x/y/k.cu")))  # as nvcc's ids begin
        self.assertEqual(a, nvccpar.module_id("/x/y/k.cu", "k.cu", b"int x;", ["-c", "k.cu"]))
        self.assertNotEqual(a, nvccpar.module_id("/x/z/k.cu", "k.cu", b"int x;", ["-c", "k.cu"]))
        self.assertNotEqual(a, nvccpar.module_id("/x/y/k.cu", "k.cu", b"int y;", ["-c", "k.cu"]))
        self.assertRegex(nvccpar.module_id("/a/my-file.v2.cu", "my-file.v2.cu", b"", []),
                         r"^_[0-9a-f]{8}_13_my_file_v2_cu_[0-9a-f]{8}$")

    def test_dependency_file_is_nvccs(self):
        # torch 1.13 on Windows and 2.x: --generate-dependencies-with-compile --dependency-output; 2.11: -MD -MF.
        for form in (["--generate-dependencies-with-compile", "--dependency-output"], ["-MD", "-MF"]):
            with self.subTest(form=form):
                self.check_dependency_file(form)

    def check_dependency_file(self, form):
        texts = []
        for who in ("nvcc", "par"):
            d = os.path.join(self.dir, "deps-" + who + form[0])
            os.makedirs(os.path.join(d, "obj"), exist_ok=True)
            args = [form[0], form[1], "obj/k.o.d"] + FLAGS + ["-c", os.path.join(self.dir, "k.cu"), "-o", "obj/k.o"]
            if who == "nvcc":
                r = run([NVCC] + args, d)
            else:
                r, rep = self.par(args, cwd=d)
                self.assertEqual(rep["mode"], "parallel", rep)
                self.assertIn("deps", [s["step"] for s in rep["steps"]])
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            with open(os.path.join(d, "obj", "k.o.d")) as f:
                texts.append(f.read())
        self.assertTrue(texts[0].startswith("obj/k.o : "), texts[0][:200])
        self.assertEqual(texts[0], texts[1])

    def check_same_as_nvcc(self, source, name, args=None, mode=None):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(source)
        args = (args or FLAGS) + ["-c", name, "-o", name + ".o"]
        ref = run([NVCC] + args, self.dir)
        r, rep = self.par(args)
        self.assertEqual(r.returncode, ref.returncode)
        self.assertEqual(r.stdout.decode(), ref.stdout.decode())
        self.assertEqual(r.stderr.decode(), ref.stderr.decode())
        if mode:
            self.assertEqual(rep["mode"], mode, rep)
        return ref, rep

    def test_host_compile_error_is_nvccs_exactly(self):
        src = KERNEL.replace("  return (int)cudaGetLastError();", "  return (int)cudaGetLastError() + nope;")
        ref, rep = self.check_same_as_nvcc(src, "host_err.cu", mode="fallback")
        self.assertNotEqual(ref.returncode, 0)
        self.assertIn("host_err.cu(12): error", ref.stderr.decode())
        self.assertIn("step failed", rep["reason"])

    def test_device_compile_error_is_nvccs_exactly(self):
        src = KERNEL.replace("static __device__ float twice(float v) { return 2.f * v; }",
                             "static float twice(float v) { return 2.f * v; }")
        ref, rep = self.check_same_as_nvcc(src, "dev_err.cu", mode="fallback")
        self.assertNotEqual(ref.returncode, 0)
        self.assertIn("dev_err.cu(6): error", ref.stderr.decode())

    def test_warnings_are_printed_as_nvcc_prints_them(self):
        # One from each of: host preprocessing, device preprocessing, the front end, the final host compile.
        src = """#ifdef __CUDA_ARCH__
#warning "device pass"
#else
#warning "host pass"
#endif
__global__ void k(float* y) { y[0] = 1.f; }
extern "C" int launch(float* y, int n) {
  unsigned u = 3;
  int unused_host = 3;
  k<<<1, 1>>>(y);
  if (n < u) return 1;
  return 0;
}
"""
        ref, rep = self.check_same_as_nvcc(src, "warn.cu", args=FLAGS + ["-Xcompiler", "-Wall,-Wextra"],
                                           mode="parallel")
        self.assertEqual(ref.returncode, 0)
        err = ref.stderr.decode()
        order = ['warning: #warning "host pass"', 'warning: #warning "device pass"',
                 'warn.cu(9): warning #177-D: variable "unused_host"', "warn.cu:11:7: warning: comparison of integer"]
        self.assertEqual([err.index(w) for w in order], sorted(err.index(w) for w in order), err)

    def test_failing_step_without_rerun_keeps_the_steps_status(self):
        src = KERNEL.replace("  return (int)cudaGetLastError();", "  return (int)cudaGetLastError() + nope;")
        with open(os.path.join(self.dir, "ff.cu"), "w") as f:
            f.write(src)
        r, rep = self.par(FLAGS + ["-c", "ff.cu", "-o", "ff.o"], extra=["--no-rerun-on-error"])
        self.assertEqual(rep["mode"], "failed", rep)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('identifier "nope" is undefined', r.stderr.decode())

    def test_two_architectures_fall_back_to_nvcc_and_build(self):
        args = [a for a in FLAGS if not a.startswith("-gencode")] + [
            "-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90", "-c", "k.cu", "-o", "two.o"]
        r, rep = self.par(args)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(rep["mode"], "fallback")
        self.assertIn("more than one", rep["reason"])
        ok, err = links(os.path.join(self.dir, "two.o"), os.path.join(self.dir, "two.so"))
        self.assertTrue(ok, err)

    def test_other_shapes_fall_back(self):
        for extra, why in ((["-rdc=true"], "argument -rdc=true"), (["--keep"], "argument --keep"),
                           (["-arch=sm_90a"], "more than one")):
            args = [a for a in FLAGS if not a.startswith("-gencode")] + extra + ["-c", "k.cu", "-o", "other.o"]
            r, rep = self.par(args)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertEqual(rep["mode"], "fallback", extra)
            self.assertIn(why, rep["reason"])
        r, rep = self.par(FLAGS + ["-c", "k.cu", "-o", "off.o"], env={"KMOSAIC_NVCC_PARALLEL": "0"})
        self.assertEqual((r.returncode, rep["mode"]), (0, "fallback"))

    def test_dry_run_shapes(self):
        tmp = "/tmp/nvp-x"
        text = "\n".join([
            "#$ _HERE_=/usr/local/cuda/bin", "#$ _SPACE_= ",
            f'#$ gcc -E -x c++ k.cu -o "{tmp}/tmpxft_1-5_k.cpp4.ii" ',
            f'#$ cudafe++ --orig_src_file_name "k.cu" --orig_src_path_name "/w/k.cu" --gen_c_file_name '
            f'"{tmp}/tmpxft_1-6_k.cudafe1.cpp" --stub_file_name "tmpxft_1-6_k.cudafe1.stub.c" --gen_module_id_file '
            f'--module_id_file_name "{tmp}/tmpxft_1-4_k.module_id" "{tmp}/tmpxft_1-5_k.cpp4.ii" ',
            f'#$ gcc -D__CUDA_ARCH__=900 -E -x c++ k.cu -o "{tmp}/tmpxft_1-7_k.cpp1.ii" ',
            f'#$ "$CICC_PATH/cicc" --module_id_file_name "{tmp}/tmpxft_1-4_k.module_id" --stub_file_name '
            f'"{tmp}/tmpxft_1-6_k.cudafe1.stub.c" "{tmp}/tmpxft_1-7_k.cpp1.ii" -o "{tmp}/tmpxft_1-6_k.ptx"',
            f'#$ ptxas -arch=sm_90 -m64 "{tmp}/tmpxft_1-6_k.ptx" -o "{tmp}/tmpxft_1-8_k.cubin" ',
            f'#$ fatbinary -64 --embedded-fatbin="{tmp}/tmpxft_1-3_k.fatbin.c" ',
            f"#$ rm {tmp}/tmpxft_1-3_k.fatbin",
            f'#$ gcc -D__CUDA_ARCH__=900 -c -x c++ "{tmp}/tmpxft_1-6_k.cudafe1.cpp" -o "k.o" '])
        env, steps = nvccpar.parse_dryrun(text)
        self.assertEqual(env, {"_HERE_": "/usr/local/cuda/bin", "_SPACE_": " "})
        self.assertEqual(sorted(nvccpar.plan(steps, tmp)),
                         ["cicc", "cudafe", "dev_pp", "fatbinary", "final", "host_pp", "ptxas", "rm"])
        with self.assertRaisesRegex(nvccpar.Unsupported, "outside the private folder"):
            nvccpar.plan(steps, "/elsewhere")
        with self.assertRaisesRegex(nvccpar.Unsupported, "nvcc printed"):
            nvccpar.parse_dryrun("nvcc warning : something\n" + text)
        with self.assertRaisesRegex(nvccpar.Unsupported, "gen_module_id_file"):
            nvccpar.plan([s.replace(" --gen_module_id_file", "") for s in steps], tmp)
        with self.assertRaisesRegex(nvccpar.Unsupported, "unknown step"):
            nvccpar.plan(steps[:-1] + ["nvlink --arch=sm_90 x.o", steps[-1]], tmp)
        with self.assertRaisesRegex(nvccpar.Unsupported, "no rm"):
            nvccpar.plan([s for s in steps if not s.startswith("rm ")], tmp)


SAMPLE_NINJA = """ninja_required_version = 1.3
cxx = c++
nvcc = {nvcc}

cflags = -DTORCH_EXTENSION_NAME=km -isystem /t/include -fPIC -std=c++17
cuda_cflags = -DTORCH_EXTENSION_NAME=km -DPYBIND11_COMPILER_TYPE=\\"_gcc\\" -gencode=arch=compute_90,code=sm_90 --compiler-options '-fPIC' -O3
rule cuda_compile
  depfile = $out.d
  deps = gcc
  command = $nvcc --generate-dependencies-with-compile --dependency-output $out.d $cuda_cflags -c $in -o $out $cuda_post_cflags

build cuda.cuda.o: cuda_compile /b/cuda.cu
"""


class FastbuildNinjaLine(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="km-nvccpar-ninja-")
        self.nvcc = os.path.join(self.dir, "cuda", "bin", "nvcc")
        os.makedirs(os.path.dirname(self.nvcc))
        with open(self.nvcc, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(self.nvcc, 0o755)
        self.old_env = os.environ.pop(fastbuild.NVCC_PARALLEL_ENV, None)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.old_env is not None:
            os.environ[fastbuild.NVCC_PARALLEL_ENV] = self.old_env
        else:
            os.environ.pop(fastbuild.NVCC_PARALLEL_ENV, None)

    def write(self, nvcc):
        with open(os.path.join(self.dir, "build.ninja"), "w") as f:
            f.write(SAMPLE_NINJA.format(nvcc=nvcc))

    def read(self):
        with open(os.path.join(self.dir, "build.ninja")) as f:
            return f.read()

    def test_nvcc_line_calls_nvccpar_with_torchs_nvcc(self):
        self.write(self.nvcc)
        state, nvcc = fastbuild._use_nvcc_parallel(self.dir, None, rerun_on_error=True)
        self.assertEqual((state, nvcc), ("parallel", self.nvcc))
        report = os.path.join(self.dir, fastbuild.NVCC_PARALLEL_REPORT)
        expected = f"nvcc = {sys.executable} -S {fastbuild.NVCCPAR} --report {report} --nvcc {self.nvcc} --"
        self.assertEqual(self.read(), SAMPLE_NINJA.format(nvcc=self.nvcc).replace(f"nvcc = {self.nvcc}", expected))
        self.assertTrue(os.path.isabs(fastbuild.NVCCPAR) and os.path.isfile(fastbuild.NVCCPAR))
        # The light attempt's line, then back (the fallback attempt prints errors as nvcc does).
        fastbuild._use_nvcc_parallel(self.dir, nvcc, rerun_on_error=False)
        self.assertIn(f"--report {report} --no-rerun-on-error --nvcc {self.nvcc} --\n", self.read())
        fastbuild._use_nvcc_parallel(self.dir, nvcc, rerun_on_error=True)
        self.assertIn(expected + "\n", self.read())

    def test_quoting_for_the_shell_and_ninja(self):
        line = fastbuild.nvcc_parallel_line("/opt/cu da/bin/nvcc", "/usr/bin/python3", "/b/$r.jsonl")
        self.assertEqual(line, f"nvcc = /usr/bin/python3 -S {fastbuild.NVCCPAR} --report '/b/$$r.jsonl' "
                               "--nvcc '/opt/cu da/bin/nvcc' --")

    def test_left_alone_when_off_or_without_nvcc(self):
        self.write(self.nvcc)
        os.environ[fastbuild.NVCC_PARALLEL_ENV] = "0"
        self.assertEqual(fastbuild._use_nvcc_parallel(self.dir, None, True)[0], "disabled")
        self.assertEqual(self.read(), SAMPLE_NINJA.format(nvcc=self.nvcc))
        del os.environ[fastbuild.NVCC_PARALLEL_ENV]
        self.write("/no/such/nvcc")
        self.assertEqual(fastbuild._use_nvcc_parallel(self.dir, None, True)[0], "missing")
        self.assertEqual(self.read(), SAMPLE_NINJA.format(nvcc="/no/such/nvcc"))


class FastbuildAttempts(unittest.TestCase):
    """fast() around a stand-in for torch's ninja step: the light attempt runs nvccpar without the rerun, the
    fallback attempt (original source) with it, and the report says so."""

    def test_light_attempt_then_fallback(self):
        import torch.utils.cpp_extension as ce
        d = tempfile.mkdtemp(prefix="km-nvccpar-fast-")
        self.addCleanup(shutil.rmtree, d, True)
        nvcc = os.path.join(d, "nvcc")
        with open(nvcc, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(nvcc, 0o755)
        with open(os.path.join(d, "build.ninja"), "w") as f:
            f.write(SAMPLE_NINJA.format(nvcc=nvcc))
        original_source = "#include <torch/extension.h>\n__global__ void k() {}\n"
        with open(os.path.join(d, "cuda.cu"), "w") as f:
            f.write(original_source)
        seen = []

        def stand_in(build_directory, verbose, error_prefix):
            with open(os.path.join(build_directory, "build.ninja")) as f:
                line = [x for x in f.read().splitlines() if x.startswith("nvcc = ")][0]
            with open(os.path.join(build_directory, "cuda.cu")) as f:
                seen.append((line, f.read()))
            with open(os.path.join(build_directory, fastbuild.NVCC_PARALLEL_REPORT), "a") as f:
                f.write(json.dumps({"mode": "failed" if len(seen) == 1 else "parallel", "reason": "", "seconds": 1})
                        + "\n")
            if len(seen) == 1:
                raise RuntimeError("light build failed")

        saved = ce._run_ninja_build
        ce._run_ninja_build = stand_in
        try:
            fastbuild.install(None)
            ce._run_ninja_build(d, False, "error")
        finally:
            ce._run_ninja_build = saved
        self.assertEqual(len(seen), 2)
        self.assertIn("--no-rerun-on-error", seen[0][0])
        self.assertIn(fastbuild.LIGHT_HEADER, seen[0][1])
        self.assertNotIn("--no-rerun-on-error", seen[1][0])
        self.assertIn(f"--nvcc {nvcc} --", seen[1][0])
        self.assertEqual(seen[1][1], original_source)
        rep = fastbuild.report(d)
        self.assertEqual((rep["light"], rep["nvcc"]), ("fallback", "parallel"))
        self.assertEqual([r["mode"] for r in rep["nvcc_runs"]], ["failed", "parallel"])


@unittest.skipUnless(HAVE_NVCC and shutil.which("ninja"), NO_NVCC + " or no ninja")
class FastbuildWithNinja(unittest.TestCase):
    """torch's own build.ninja (1.13 here: no dependency flags) for a CUDA source without torch headers, built by
    ninja through fast(): the CUDA compile takes the parallel path and the library links."""

    def test_torch_build_ninja(self):
        import torch.utils.cpp_extension as ce
        d = tempfile.mkdtemp(prefix="km-nvccpar-ninja-build-")
        self.addCleanup(shutil.rmtree, d, True)
        with open(os.path.join(d, "cuda.cu"), "w") as f:
            f.write(KERNEL)
        old = os.environ.get("TORCH_CUDA_ARCH_LIST")
        os.environ["TORCH_CUDA_ARCH_LIST"] = "8.0"  # any GPU's; torch 1.13 knows archs up to 8.6
        try:
            kw = dict(path=os.path.join(d, "build.ninja"), name="km_nvccpar_test", sources=[os.path.join(d, "cuda.cu")],
                      extra_cflags=[], extra_cuda_cflags=["-O3", "-std=c++17"], extra_ldflags=[
                          f"-L{os.path.join(os.path.dirname(os.path.dirname(NVCC)), 'lib64')}", "-lcudart"],
                      extra_include_paths=[], with_cuda=True, is_standalone=False)
            for p in inspect.signature(ce._write_ninja_file_to_build_library).parameters.values():
                if p.name not in kw and p.default is inspect.Parameter.empty:  # later torch: extra_sycl_cflags...
                    kw[p.name] = [] if p.name.startswith("extra_") else False
            ce._write_ninja_file_to_build_library(**kw)
        finally:
            if old is None:
                os.environ.pop("TORCH_CUDA_ARCH_LIST", None)
            else:
                os.environ["TORCH_CUDA_ARCH_LIST"] = old
        saved = ce._run_ninja_build
        try:
            fastbuild.install(None)
            ce._run_ninja_build(d, False, "error building")
        finally:
            ce._run_ninja_build = saved
        rep = fastbuild.report(d)
        self.assertEqual(rep["nvcc"], "parallel", rep)
        self.assertEqual([r["mode"] for r in rep["nvcc_runs"]], ["parallel"], rep)
        self.assertTrue(os.path.getsize(os.path.join(d, "km_nvccpar_test.so")) > 0)


if __name__ == "__main__":
    unittest.main()
