"""Engine speed: points per second of a vectorised sweep, and `sizing evaluate` on the largest scenario."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sizing.evaluate import evaluate  # noqa: E402
from sizing.scenario import load_scenario_bytes  # noqa: E402

POINTS = 1_000_000


def sweep_rate() -> tuple[int, float]:
    """Evaluate a batch sweep of POINTS values on every device of the 70B scenario."""
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    text = re.sub(r"^sweep: .*$", f"sweep: {{batch: {{from: 1, to: {POINTS}, points: {POINTS}}}}}", text, flags=re.M)
    scn, problems = load_scenario_bytes(text.encode(), "bench.yaml", base=ROOT / "scenarios")
    assert scn is not None, problems
    start = time.perf_counter()
    r = evaluate(scn)
    elapsed = time.perf_counter() - start
    s = r.sweeps[0]
    return len(s.values) * len(s.series), elapsed


def cli_time(path: Path, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sizing.cli", "evaluate", str(path)], check=True,
                       capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    n, t = sweep_rate()
    print(f"sweep: {n:,} (workload, device, batch) points in {t:.2f} s -> {n / t:,.0f} points/s "
          "(load, evaluate every quantity, find crossovers; one core)")
    largest = max((ROOT / "scenarios").glob("*.yaml"), key=lambda p: p.stat().st_size)
    print(f"sizing evaluate {largest.name}: {cli_time(largest):.2f} s (best of 5, incl. interpreter start)")


if __name__ == "__main__":
    main()
