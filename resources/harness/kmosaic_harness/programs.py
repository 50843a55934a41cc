"""Loading the reference and the solution as modules, inputs from seeds, and models with shared parameters.

The reference and the solution each get the same inputs and the same parameters, derived only from seeds, so
that two processes that never talk to each other compute comparable outputs.
"""
import sys
import types

import torch


class ProgramError(Exception):
    """A program failed to load or to run; `kind` says which way (syntax, import, contract, exception)."""

    def __init__(self, kind, message, line=0, tb=""):
        super().__init__(message)
        self.kind = kind
        self.line = line
        self.traceback = tb


def exact_fp32():
    """fp32 means fp32: TF32 in matmuls and convolutions would make the reference itself miss fp32 tolerances."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def start_child(plan):
    """What every child that runs the reference does first: its thread count, exact fp32, the reference module."""
    torch.set_num_threads(plan.get("threads", torch.get_num_threads()))
    exact_fp32()
    return load_module("kmosaic_reference", plan["reference"], "reference.py")


def load_module(name, source, filename):
    """Executes `source` as a fresh module registered under `name`. SyntaxError becomes ProgramError('syntax')."""
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as e:
        raise ProgramError("syntax", f"{filename}:{e.lineno}: {e.msg}", line=e.lineno or 0)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module


def apply_config(module, values):
    """A configuration overrides module-level constants; the names must exist in the reference. Constants another
    configuration changed go back to the module's own values first, so configurations never leak into each other."""
    defaults = module.__dict__.setdefault("__kmosaic_defaults__", {})
    for key in values:
        if key not in module.__dict__:
            raise ProgramError("contract", f"configuration sets '{key}', which the reference does not define")
        defaults.setdefault(key, module.__dict__[key])
    for key, value in defaults.items():
        module.__dict__[key] = value
    for key, value in values.items():
        module.__dict__[key] = value


# The hidden input distributions (docs/verifier.md): every configuration also runs on fresh seeds with its
# floating-point data inputs transformed, so that a kernel tuned to get_inputs()'s N(0, 1) draws shows it.
TRANSFORMS = {
    "x3": lambda x: x * 3,
    "x0.01": lambda x: x * 0.01,
    "negated": lambda x: -x,
    "shifted": lambda x: x + 2,
}
# A reference names the inputs (positions in get_inputs()) that must keep their values: indices, probabilities.
UNTRANSFORMED = "KMOSAIC_UNTRANSFORMED_INPUTS"


def untransformed_inputs(reference):
    keep = getattr(reference, UNTRANSFORMED, ())
    if not isinstance(keep, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in keep):
        raise ProgramError("contract", f"{UNTRANSFORMED} must be a list of input positions (integers)")
    return set(keep)


def make_inputs(reference, seed, device, transform=None):
    """The reference's inputs for `seed`, made on `device`: both children call this with the same seed and device, so
    they see the same values. On a GPU the factory calls run there (torch.device as a context): drawing 256 MB of
    normal numbers on one CPU thread costs about a second, per trial and per side. `transform` (a TRANSFORMS name)
    applies to the floating-point tensors the reference does not name in KMOSAIC_UNTRANSFORMED_INPUTS."""
    inputs = _draw_inputs(reference, seed, device)
    if not transform:
        return inputs
    keep = untransformed_inputs(reference)
    f = TRANSFORMS[transform]
    return [f(x) if isinstance(x, torch.Tensor) and x.is_floating_point() and i not in keep else x
            for i, x in enumerate(inputs)]


def _draw_inputs(reference, seed, device):
    torch.manual_seed(seed)
    inputs = None
    if device != "cpu" and hasattr(torch, "get_default_device"):
        try:
            with torch.device(device):
                inputs = reference.get_inputs()
        except Exception:  # noqa: BLE001 - get_inputs that needs CPU tensors (numpy, .tolist()): made on the CPU
            torch.manual_seed(seed)
            inputs = None
    if inputs is None:
        inputs = reference.get_inputs()
    if not isinstance(inputs, (list, tuple)):
        raise ProgramError("contract", "get_inputs() must return a list")
    return [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]


def clone_inputs(inputs):
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def init_inputs(reference):
    values = reference.get_init_inputs()
    if not isinstance(values, (list, tuple)):
        raise ProgramError("contract", "get_init_inputs() must return a list")
    return list(values)


def _randomise_constant_tensors(model, seed):
    """Parameters and buffers that start as one constant (norm scale 1, bias 0, running stats) get random values,
    so a kernel that ignores them cannot pass. Variances stay positive."""
    gen = torch.Generator().manual_seed(seed + 7919)
    changed = []
    with torch.no_grad():
        for name, t in list(model.named_parameters()) + list(model.named_buffers()):
            if not t.is_floating_point() or t.numel() < 2:
                continue
            flat = t.detach().reshape(-1)
            if not bool((flat == flat[0]).all()):
                continue
            c = float(flat[0])
            noise = torch.randn(t.shape, generator=gen, dtype=torch.float32).to(t.dtype)
            scale = abs(c) if c != 0 else 1.0
            new = c + 0.1 * scale * noise
            if "var" in name.rsplit(".", 1)[-1]:
                new = new.abs() + 1e-3
            t.copy_(new)
            changed.append(name)
    return changed


def build_reference(reference, init_seed, device):
    torch.manual_seed(init_seed)
    model = reference.Model(*init_inputs(reference))
    changed = _randomise_constant_tensors(model, init_seed)
    return model.to(device).eval(), changed


def build_solution(solution, reference, ref_model, init_seed, device):
    """ModelNew with the reference's parameters when both name them alike (a strict state-dict copy)."""
    cls = getattr(solution, "ModelNew", None)
    if cls is None or not isinstance(cls, type):
        raise ProgramError("contract", "the solution defines no class ModelNew")
    torch.manual_seed(init_seed)
    try:
        model = cls(*init_inputs(reference))
    except TypeError as e:
        raise ProgramError("contract", f"ModelNew(*get_init_inputs()) failed: {e}")
    if not isinstance(model, torch.nn.Module):
        raise ProgramError("contract", "ModelNew is not a torch.nn.Module")
    ref_state = ref_model.state_dict()
    new_state = model.state_dict()
    note = "no parameters"
    if ref_state:
        same = set(ref_state) == set(new_state) and all(
            tuple(ref_state[k].shape) == tuple(new_state[k].shape) for k in ref_state)
        if same:
            model.load_state_dict({k: v.detach().to("cpu") for k, v in ref_state.items()}, strict=True)
            note = "copied from the reference"
        else:
            missing = sorted(set(ref_state) - set(new_state))[:5]
            note = "not copied: names or shapes differ from the reference's" + (
                f" (missing {', '.join(missing)})" if missing else "")
    return model.to(device).eval(), note


def flatten_outputs(out):
    """The outputs as a list of tensors; anything else is reported, not guessed."""
    if isinstance(out, (list, tuple)):
        return list(out)
    return [out]
