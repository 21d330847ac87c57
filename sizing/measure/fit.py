"""Fitting timings to the models the engine uses: a link's bandwidth and fixed overhead from copies of growing size,
the size at which a matrix product saturates, and the efficiency that makes predictions match measurements."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class LinkFit:
    """time = overhead + bytes / bandwidth, fitted to copies of growing size."""

    bandwidth: float            # bytes/s
    overhead: float             # s per copy
    worst: float                # the largest relative miss of the fit over the timings

    def time(self, nbytes: float) -> float:
        return self.overhead + nbytes / self.bandwidth


def fit_link(sizes: Sequence[float], seconds: Sequence[float]) -> LinkFit:
    """Least squares on relative error (each timing weighted by 1/t, so a 1 kB copy counts as much as a 1 GB one);
    the overhead is at least zero (a negative intercept is noise: the fit is then redone through the origin)."""
    x, t = np.asarray(sizes, float), np.asarray(seconds, float)
    if len(x) < 2 or np.ptp(x) == 0:
        raise ValueError("a link fit needs copies of at least two sizes")
    w = 1.0 / t
    design = np.column_stack([np.ones_like(x), x]) * w[:, None]
    (overhead, per_byte), *_ = np.linalg.lstsq(design, t * w, rcond=None)
    if overhead < 0 or per_byte <= 0:
        overhead = 0.0
        per_byte = float(np.sum(x * w * w * t) / np.sum((x * w) ** 2))
    fit = LinkFit(1.0 / per_byte, float(overhead), 0.0)
    worst = float(np.max(np.abs(np.array([fit.time(s) for s in x]) / t - 1)))
    return LinkFit(fit.bandwidth, fit.overhead, worst)


def saturation(sizes: Sequence[float], rates: Sequence[float], reference: float | None = None,
               share: float = 0.9) -> float:
    """The smallest size from which every larger size delivers at least `share` of `reference` (default: the best
    rate measured): where the rate levels off and stays."""
    order = np.argsort(sizes)
    x, r = np.asarray(sizes, float)[order], np.asarray(rates, float)[order]
    ok = r >= share * (r.max() if reference is None else reference)
    i = len(x)
    while i > 0 and ok[i - 1]:
        i -= 1
    return float(x[min(i, len(x) - 1)])


def golden(f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-4) -> float:
    """The minimum of a unimodal f on [lo, hi] (golden-section search, on a log scale of x)."""
    a, b = math.log(lo), math.log(hi)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(math.exp(c)), f(math.exp(d))
    while b - a > tol:
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(math.exp(d))
    return math.exp((a + b) / 2)


def log_error(measured: Sequence[float], predicted: Sequence[float]) -> float:
    """The root mean square of log(measured / predicted): 0 is a perfect fit, 0.1 about 10 % off."""
    m, p = np.asarray(measured, float), np.asarray(predicted, float)
    return float(np.sqrt(np.mean(np.log(m / p) ** 2)))
