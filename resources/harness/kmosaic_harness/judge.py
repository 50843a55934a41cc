"""Comparison of outputs, in the worker: the solution never shares a process with this code."""
import torch


def compare(ref_outs, sol_outs, atol, rtol):
    """Returns a trial record: ok, max_abs, max_rel, mismatches, and a `status` when it is not numerical."""
    rec = {"ok": False, "max_abs": 0.0, "max_rel": 0.0, "mismatches": 0, "checks": []}
    if len(ref_outs) != len(sol_outs):
        rec["status"] = "INCORRECT_SHAPE"
        rec["message"] = f"returns {len(sol_outs)} output(s), the reference returns {len(ref_outs)}"
        return rec
    for i, (r, s) in enumerate(zip(ref_outs, sol_outs)):
        if list(r.shape) != list(s.shape):
            rec["status"] = "INCORRECT_SHAPE"
            rec["message"] = f"output {i} has shape {list(s.shape)}, the reference's is {list(r.shape)}"
            return rec
        if r.dtype != s.dtype:
            rec["status"] = "INCORRECT_DTYPE"
            rec["message"] = f"output {i} is {s.dtype}, the reference's is {r.dtype}"
            return rec
    for i, (r, s) in enumerate(zip(ref_outs, sol_outs)):
        if r.numel() == 0:
            continue
        rd = r.to(torch.float64)
        sd = s.to(torch.float64)
        rfin = torch.isfinite(rd)
        sfin = torch.isfinite(sd)
        bad = rfin & ~sfin
        if bool(bad.any()):
            rec["status"] = "INCORRECT_NUMERICAL"
            rec["checks"].append("correctness.nonfinite")
            rec["message"] = f"output {i} has {int(bad.sum())} NaN/Inf value(s) where the reference is finite"
            rec["max_abs"] = float("inf")
            return rec
        nonfin_ref = ~rfin
        if bool(nonfin_ref.any()):
            same = (rd[nonfin_ref].isnan() & sd[nonfin_ref].isnan()) | (rd[nonfin_ref] == sd[nonfin_ref])
            if not bool(same.all()):
                rec["status"] = "INCORRECT_NUMERICAL"
                rec["message"] = f"output {i} differs from the reference where the reference is NaN/Inf"
                return rec
        rv, sv = rd[rfin], sd[rfin]
        diff = (sv - rv).abs()
        tol = atol + rtol * rv.abs()
        mism = int((diff > tol).sum())
        max_abs = float(diff.max()) if diff.numel() else 0.0
        denom = rv.abs().clamp_min(max(atol, 1e-30))
        max_rel = float((diff / denom).max()) if diff.numel() else 0.0
        rec["max_abs"] = max(rec["max_abs"], max_abs)
        rec["max_rel"] = max(rec["max_rel"], max_rel)
        rec["mismatches"] += mism
        if s.numel() > 1 and r.numel() > 1:
            s_const = bool((sd == sd.reshape(-1)[0]).all())
            r_const = bool((rd == rd.reshape(-1)[0]).all())
            if s_const and not r_const:
                rec["checks"].append("runtime.constant_output")
                rec["message"] = (f"output {i} is the constant {float(sd.reshape(-1)[0])} everywhere; the "
                                  "reference's is not constant")
        if mism:
            rec["status"] = "INCORRECT_NUMERICAL"
            idx = int((diff - tol).argmax())
            rec.setdefault("message", f"output {i}: {mism} of {rv.numel()} values outside atol {atol:g} + rtol "
                           f"{rtol:g}; worst: {float(sv[idx]):.6g} vs reference {float(rv[idx]):.6g}")
    if "status" not in rec:
        rec["ok"] = True
    return rec


def same_within(a_outs, b_outs, atol, rtol):
    """True when two runs of the solution agree within tolerance (the determinism re-run)."""
    if len(a_outs) != len(b_outs):
        return False
    for a, b in zip(a_outs, b_outs):
        if a.shape != b.shape:
            return False
        ad, bd = a.to(torch.float64), b.to(torch.float64)
        both_nan = ad.isnan() & bd.isnan()
        diff = (ad - bd).abs()
        ok = (diff <= atol + rtol * bd.abs()) | both_nan
        if not bool(ok.all()):
            return False
    return True
