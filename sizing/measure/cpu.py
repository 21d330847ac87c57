"""The processor measured with numpy: matrix products over a size sweep per floating precision (the BLAS numpy
uses, on every core it allows), and memory bandwidth STREAM-like (copy and triad over arrays well beyond the last
cache, one thread per core)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .fit import saturation
from .timing import Budget, Sample, timed

# numpy's BLAS precisions; numpy has no fp16/bf16 BLAS kernel (its fp16 product is a slow generic loop that would
# measure numpy, not the processor), so those are not measured.
PRECISIONS = {"fp64": np.float64, "fp32": np.float32}
BITS = {"fp64": 64, "fp32": 32}
CHUNK = (32_768, 1 << 20)   # values per triad chunk: at least 256 kB, at most 8 MB, an eighth of the cache a thread
SIZES = (64, 128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096)
MIN_SWEPT = 1024       # the sweep always reaches this size, whatever its budget


@dataclass(frozen=True)
class MatmulPoint:
    n: int
    sample: Sample
    itemsize: int = 4           # bytes per value

    @property
    def rate(self) -> float:
        """FLOP/s at the median time: 2 n^3 FLOP (a multiply and an add per term)."""
        return 2.0 * self.n ** 3 / self.sample.median

    @property
    def intensity(self) -> float:
        """FLOP per byte of the product if each matrix moves once (3 n^2 values)."""
        return 2.0 * self.n ** 3 / (3 * self.n ** 2 * self.itemsize)


@dataclass(frozen=True)
class MatmulSweep:
    precision: str
    points: tuple[MatmulPoint, ...]

    @property
    def large(self) -> tuple[MatmulPoint, ...]:
        """The larger half of the sizes measured (at least two): the products a workload's large matrices are."""
        ordered = sorted(self.points, key=lambda p: p.n)
        return tuple(ordered[len(ordered) // 2:] if len(ordered) >= 4 else ordered[-2:])

    @property
    def delivered(self) -> float:
        """The median rate of the larger sizes: what a large, well-tiled product gets, robust to one noisy size."""
        return float(np.median([p.rate for p in self.large]))

    @property
    def best(self) -> MatmulPoint:
        """The larger size whose rate is nearest the delivered figure (its timing is the one the source cites)."""
        return min(self.large, key=lambda p: abs(p.rate - self.delivered))

    @property
    def spread(self) -> float:
        """The largest spread of the larger sizes' runs."""
        return max(p.sample.spread for p in self.large)

    @property
    def saturates_at(self) -> int:
        return int(saturation([p.n for p in self.points], [p.rate for p in self.points], self.delivered))


def matmul_sweep(precision: str, budget: Budget, share: float, sizes=SIZES, repeat: int = 5,
                 progress: Callable[[str], None] = lambda s: None) -> MatmulSweep:
    """Products of growing size until the next would not fit in `share` of the time left; always up to n = 1,024 (or
    the largest size given), below which a product is too small to keep the processor busy and the rate would
    understate it (a busy or slow machine that spent its budget on smaller sizes got half the rate)."""
    dtype = PRECISIONS[precision]
    rng = np.random.default_rng(0)
    points: list[MatmulPoint] = []
    floor = min(MIN_SWEPT, max(sizes))
    for n in sizes:
        if len(points) >= 3 and points[-1].n >= floor and points[-1].sample.median > 0:
            estimate = points[-1].sample.median * (n / points[-1].n) ** 3 * (repeat + 1)
            if not budget.fits(estimate, share):
                break
        a = rng.standard_normal((n, n)).astype(dtype)
        b = rng.standard_normal((n, n)).astype(dtype)
        out = np.empty((n, n), dtype)
        s = timed(lambda: np.matmul(a, b, out=out), repeat=repeat)
        points.append(MatmulPoint(n, s, dtype().itemsize))
        progress(f"matmul {precision} n={n}: {points[-1].rate / 1e9:,.1f} GFLOP/s (spread {100 * s.spread:.0f} %)")
    return MatmulSweep(precision, tuple(points))


@dataclass(frozen=True)
class Stream:
    """A STREAM-like kernel: the bytes it moves per run (as STREAM counts them) and its timings."""

    kernel: str                 # copy | triad
    nbytes: float
    sample: Sample

    @property
    def bandwidth(self) -> float:
        return self.nbytes / self.sample.median


def stream(array_bytes: float, threads: int, repeat: int = 5, cache: float = 0.0) -> tuple[Stream, Stream]:
    """Copy (b = a: 2 arrays moved) and triad (a = b + s c: 3 arrays), each thread on its own slice of arrays of
    `array_bytes`; numpy releases the interpreter lock in these loops, so the threads run at once."""
    n = int(array_bytes // 8)
    a, b, c = np.ones(n), np.full(n, 2.0), np.full(n, 0.5)
    cuts = np.linspace(0, n, threads + 1).astype(int)
    parts = [slice(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])]
    chunk = int(min(max(cache / threads / 8 / 8, CHUNK[0]), CHUNK[1]))
    scratch = [np.empty(chunk) for _ in parts]          # a buffer per thread within the cache: s c stays there

    def triad_part(i: int) -> None:
        t, p = scratch[i], parts[i]
        for lo in range(p.start, p.stop, chunk):
            hi = min(lo + chunk, p.stop)
            np.multiply(c[lo:hi], 3.0, out=t[:hi - lo])
            np.add(b[lo:hi], t[:hi - lo], out=a[lo:hi])

    with ThreadPoolExecutor(threads) as pool:
        def each(f) -> Callable[[], None]:
            return lambda: list(pool.map(f, range(threads)))
        copy = timed(each(lambda i: np.copyto(b[parts[i]], a[parts[i]])), repeat=repeat)
        triad = timed(each(triad_part), repeat=repeat)
    return Stream("copy", 2.0 * n * 8, copy), Stream("triad", 3.0 * n * 8, triad)
