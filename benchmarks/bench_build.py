"""Build: whole-process CPU seconds of `sizing build` on every shipped scenario and on one, in one process
(--jobs 1), the marginal cost per scenario, and the wall time of `sizing report` on single scenarios.
Targets (issue 18): marginal <= 1 s of CPU per scenario; a single-scenario report <= 2.5 s."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.targets import SIZING, cpu_seconds, verdict, wall_seconds  # noqa: E402

ONE = "scenarios/ref-7b-decode.yaml"
REPORTS = ("ref-7b-decode", "capacity-chat-8b", "chat-70b-fp8")


def main() -> None:
    everything = sorted((ROOT / "scenarios").glob("*.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        all_cpu = cpu_seconds([*SIZING, "build", "scenarios/", "--out", f"{tmp}/all", "--jobs", "1"], runs=1)
        one_cpu = cpu_seconds([*SIZING, "build", ONE, "--out", f"{tmp}/one", "--jobs", "1"], runs=3)
        wall = wall_seconds([*SIZING, "build", "scenarios/", "--out", f"{tmp}/par"], runs=1)
        print(f"sizing build, {len(everything)} scenarios, --jobs 1: {all_cpu:.1f} s CPU; one scenario ({ONE}): "
              f"{one_cpu:.1f} s CPU; all with the default --jobs: {wall:.1f} s wall")
        print(verdict("marginal cost per scenario", (all_cpu - one_cpu) / (len(everything) - 1), 1.0, "s CPU"))
        for name in REPORTS:
            seconds = wall_seconds([*SIZING, "report", f"scenarios/{name}.yaml", "-o", f"{tmp}/{name}.pdf"])
            print(verdict(f"sizing report {name}", seconds, 2.5, "s wall (median of 3)"))


if __name__ == "__main__":
    main()
