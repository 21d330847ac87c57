"""Each benchmark prints its figures beside the target issue 18 set for them (met or not), in one format."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]


def verdict(what: str, value: float, target: float, unit: str, higher: bool = False) -> str:
    """`what: value unit (target <= or >= target unit: met / NOT met)`."""
    met = value >= target if higher else value <= target
    sign = ">=" if higher else "<="
    return f"{what}: {value:,.2f} {unit} (target {sign} {target:,.2f} {unit}: {'met' if met else 'NOT met'})"


def cpu_seconds(argv: Sequence[str], runs: int = 3, cwd: Path = ROOT) -> float:
    """Median whole-process CPU seconds (user + system, children included) of running argv."""
    out = []
    for _ in range(runs):
        before = os.times()
        subprocess.run(list(argv), check=True, capture_output=True, cwd=cwd)
        after = os.times()
        out.append((after.children_user - before.children_user) + (after.children_system - before.children_system))
    return statistics.median(out)


def wall_seconds(argv: Sequence[str], runs: int = 3, cwd: Path = ROOT) -> float:
    """Median wall seconds of running argv."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(list(argv), check=True, capture_output=True, cwd=cwd)
        out.append(time.perf_counter() - start)
    return statistics.median(out)


SIZING = [sys.executable, "-m", "sizing.cli"]
