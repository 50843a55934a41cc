"""Order statistics and a bootstrap confidence interval of a ratio of medians. Standard library only."""
import random


def quantile(sorted_values, q):
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summary(samples):
    s = sorted(samples)
    if not s:
        return None
    return {"n": len(s), "median": quantile(s, 0.5), "q1": quantile(s, 0.25), "q3": quantile(s, 0.75),
            "min": s[0], "max": s[-1], "mean": sum(s) / len(s)}


def bootstrap_speedup_ci(reference, solution, rounds=2000, level=0.95, seed=12345):
    """Percentile bootstrap of median(reference) / median(solution), resampling both sides independently."""
    if not reference or not solution:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(rounds):
        r = sorted(rng.choices(reference, k=len(reference)))
        s = sorted(rng.choices(solution, k=len(solution)))
        sm = quantile(s, 0.5)
        if sm > 0:
            ratios.append(quantile(r, 0.5) / sm)
    if not ratios:
        return None
    ratios.sort()
    alpha = (1 - level) / 2
    return [quantile(ratios, alpha), quantile(ratios, 1 - alpha)]
