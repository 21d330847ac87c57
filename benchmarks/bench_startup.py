"""Start-up: `sizing validate scenarios/` against importing pint and building its default registry, both as whole
processes on this machine, CPU seconds (median of 5). Target (issue 18): validate <= 1.3x the reference."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.targets import SIZING, cpu_seconds, verdict  # noqa: E402

PINT = [sys.executable, "-c", "import pint; pint.UnitRegistry()"]
TARGET = 1.3


def main() -> None:
    scenarios = sorted((ROOT / "scenarios").glob("*.yaml"))
    reference = cpu_seconds(PINT, runs=5)
    validate = cpu_seconds([*SIZING, "validate", "scenarios/"], runs=5)
    print(f"import pint and build its default registry: {reference:.2f} s CPU (median of 5)")
    print(f"sizing validate scenarios/ ({len(scenarios)} scenarios): {validate:.2f} s CPU (median of 5)")
    print(verdict("validate against the reference", validate / reference, TARGET, "x"))


if __name__ == "__main__":
    main()
