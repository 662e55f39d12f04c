"""Figures from lists of measures: percentiles, their spread, and seconds written for people."""

from __future__ import annotations

import math


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def spread(values: list[float]) -> dict[str, float | int]:
    return {
        "count": len(values),
        "p50": percentile(values, 0.5),
        "p99": percentile(values, 0.99),
        "max": max(values) if values else math.nan,
    }


def ms(seconds: float) -> str:
    if math.isnan(seconds):
        return "-"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"
