"""Shared helpers for the benchmarks: percentiles and a printed table."""

from __future__ import annotations

import statistics


def percentile(samples: list[float], q: float) -> float:
    s = sorted(samples)
    if not s:
        return float("nan")
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def summary(name: str, samples_s: list[float], floor_s: list[float] | None = None, unit: str = "us") -> str:
    scale = {"us": 1e6, "ms": 1e3, "s": 1.0}[unit]
    p50, p99 = percentile(samples_s, 50) * scale, percentile(samples_s, 99) * scale
    line = f"{name:<44} n={len(samples_s):<7} p50={p50:9.2f} {unit}  p99={p99:9.2f} {unit}  mean={statistics.fmean(samples_s) * scale:9.2f} {unit}"
    if floor_s:
        f50 = percentile(floor_s, 50) * scale
        f99 = percentile(floor_s, 99) * scale
        line += f"  (floor p50={f50:.2f} p99={f99:.2f}; ratio p50={p50 / f50:.1f}x p99={p99 / f99:.1f}x)"
    return line
