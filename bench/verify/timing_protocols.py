"""How the timing protocol shapes the spread (issue 5: IQR under 1 % of the median, five medians within 1 %).

On one GPU, a 4096 x 16384 fp32 ReLU (the relu-anchor's shape; torch.relu behind an nn.Module, as a solution is
called), five rounds of 100 timed runs per variant, variants interleaved in every round:
  sync-record    the GPU idles while Python launches the kernel (the harness before 2026-12-03);
  lead+zeroflush a spin kernel keeps the GPU busy while the launch happens; the L2 flushed by zeroing a buffer
                 (the harness from 2026-12-03 until round 7);
  lead+readflush the same, with the L2 flushed by reading a buffer instead (no dirty lines): timing.run now.
Prints one table: per variant the median of the five medians, the worst IQR % and the spread of the medians %.
Usage (GPU machine, repository root): PYTHONPATH=resources/harness python3 bench/verify/timing_protocols.py
"""
import statistics

import torch

from kmosaic_harness import stats, timing
from kmosaic_harness.trusted import Trusted


class Relu(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


def sync_record(T, fn, runs, warmup, flush):
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        flush.zero_()
        start, end = T.Event(enable_timing=True), T.Event(enable_timing=True)
        T.synchronize()
        start.record()
        fn()
        end.record()
        T.synchronize()
        out.append(start.elapsed_time(end))
    return out


def main():
    T = Trusted()
    model = Relu()
    x = torch.randn(4096, 16384, device="cuda")
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    buf = torch.empty(int(2 * l2) // 4, dtype=torch.float32, device="cuda")
    fn = lambda: model(x)  # noqa: E731
    variants = {
        "sync-record": lambda: sync_record(T, fn, 100, 10, buf),
        "lead+zeroflush": lambda: timing.run(T, fn, "cuda", 100, 10, buf.zero_, keep=())[0],
        "lead+readflush": lambda: timing.run(T, fn, "cuda", 100, 10, buf, keep=())[0],
    }
    results = {k: [] for k in variants}
    for _ in range(5):
        for name, run in variants.items():
            results[name].append(stats.summary(run()))
    print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}; lead {timing.LEAD_CYCLES} cycles")
    print("| variant | median of medians ms | worst IQR % | spread of 5 medians % |")
    print("|---|---|---|---|")
    for name, sums in results.items():
        meds = [s["median"] for s in sums]
        iqr = max(100 * (s["q3"] - s["q1"]) / s["median"] for s in sums)
        spread = 100 * (max(meds) - min(meds)) / min(meds)
        print(f"| {name} | {statistics.median(meds):.5f} | {iqr:.2f} | {spread:.2f} |")


if __name__ == "__main__":
    main()
