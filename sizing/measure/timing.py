"""Timing with warm-up and repeats (median and spread), within a time budget the whole run shares."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Sample:
    """Repeated timings of one operation, in seconds."""

    times: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def spread(self) -> float:
        """(slowest - fastest) / median: 0.05 means the runs agree within about 5 %."""
        return (max(self.times) - min(self.times)) / self.median if self.median > 0 else 0.0


def timed(run: Callable[[], object], repeat: int = 5, warmup: int = 1,
          clock: Callable[[], float] = time.perf_counter) -> Sample:
    """Time `run` `repeat` times after `warmup` untimed runs (first-call costs: allocation, caches, kernel loads)."""
    for _ in range(warmup):
        run()
    times = []
    for _ in range(repeat):
        start = clock()
        run()
        times.append(clock() - start)
    return Sample(tuple(times))


class Budget:
    """The seconds a whole measurement may take; each step asks whether its next piece still fits."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.perf_counter):
        self.seconds, self.clock = seconds, clock
        self.start = clock()

    def used(self) -> float:
        return self.clock() - self.start

    def left(self) -> float:
        return self.seconds - self.used()

    def fits(self, estimate: float, share: float = 1.0) -> bool:
        """Whether a piece expected to take `estimate` seconds fits in `share` of what is left."""
        return estimate <= share * self.left()
