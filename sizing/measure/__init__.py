"""`sizing measure`: a device profile from the machine it runs on (the processor with numpy; an accelerator through
PyTorch where one is visible), each figure with how it was measured; `sizing calibrate` (in `calibrate`): the
efficiencies of a scenario's devices fitted to its benchmark records."""

from __future__ import annotations

import datetime as dt
import os
from typing import Callable

from .. import __version__
from .accel import Backend, measure_accelerator
from .cpu import PRECISIONS, SIZES, matmul_sweep, stream
from .host import probe
from .profile import Measurement
from .timing import Budget

QUICK_SIZES = (64, 128, 256, 512)


def measure(seconds: float = 60.0, quick: bool = False, backend: Backend | None = None,
            progress: Callable[[str], None] = lambda s: None, clock_now: Callable[[], dt.datetime] | None = None
            ) -> Measurement:
    """Measure this machine within `seconds` (`quick`: small sizes and arrays, for tests and CI)."""
    budget = Budget(seconds)
    host = probe()
    progress(f"{host.model}: {host.cores} cores ({host.logical} logical), {host.clock / 1e9:.2f} GHz, "
             f"{host.vector_bits}-bit vectors")
    threads = max(1, host.logical)
    # arrays four times the last cache (at least 64 MB; quick: 16 MB), within an eighth of the memory
    array = 16e6 if quick else min(max(4 * host.cache, 64e6), host.memory / 8 or 64e6)
    streams = stream(array, threads, repeat=3 if quick else 7, cache=host.cache)
    progress("memory: " + ", ".join(f"{s.kernel} {s.bandwidth / 1e9:,.1f} GB/s" for s in streams))
    accel_share = 0.5 if backend is not None else 0.0
    sweeps = []
    for i, precision in enumerate(PRECISIONS):
        share = (1 - accel_share) / (len(PRECISIONS) - i)
        sweeps.append(matmul_sweep(precision, budget, share, sizes=QUICK_SIZES if quick else SIZES,
                                   repeat=3 if quick else 5, progress=progress))
    accelerator = measure_accelerator(backend, budget, progress=progress) if backend is not None else None
    now = (clock_now or (lambda: dt.datetime.now(dt.timezone.utc)))()
    return Measurement(host, now.strftime("%Y-%m-%d %H:%M UTC"), budget.used(), tuple(sweeps), streams, threads,
                       array, accelerator, __version__, quick)


def torch_backend() -> Backend | None:
    """PyTorch's CUDA/ROCm device where torch is importable and sees one (SIZING_NO_ACCELERATOR=1: never)."""
    if os.environ.get("SIZING_NO_ACCELERATOR"):
        return None
    try:
        from .accel import TorchBackend
        return TorchBackend()
    except Exception:                    # no torch, no device, a driver error: measure the processor only
        return None
