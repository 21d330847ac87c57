"""Uncertainty speed: 100,000 draws of a five-option scenario (the 70B chat service on five devices, each bought as a
fleet, with ranges on prices, efficiencies and peak traffic), against the scalar engine drawing one at a time.

The reference, measured in the same run: the scalar what-if (every quantity of the scenario re-evaluated with the
draw's values, then the decision) for a few hundred draws, scaled to 100,000."""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")            # one core
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from sizing.evaluate import decide_with, evaluate, what_if  # noqa: E402
from sizing.scenario import load_scenario_bytes  # noqa: E402
from sizing.uncertainty.engine import sample, matched, simulate  # noqa: E402

DRAWS = 100_000
SCALAR = 300


def scenario():
    """chat-70b-fp8 with its alternative and sweep removed and fleets only: five options, 100,000 draws."""
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    text = re.sub(r"^    alternatives:.*\n.*\n", "", text, flags=re.M)
    text = re.sub(r"^sweep: .*\n", "", text, flags=re.M)
    text = text.replace("  require: [fits_memory, meets_targets]", "  require: [fits_memory, meets_targets]\n"
                                                                  "  options: [fleet]")
    text = text.replace("  draws: 10000", f"  draws: {DRAWS}")
    scn, problems = load_scenario_bytes(text.encode(), "bench.yaml", base=ROOT / "scenarios")
    assert scn is not None, problems
    return scn


def best_of(f, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    scn = scenario()
    base = evaluate(replace(scn, uncertainty=None))
    r = evaluate(scn)
    spread = r.simulation.decisions[0]
    assert len(spread.options) == 5, [o.option for o in spread.options]
    vector = best_of(lambda: simulate(r))
    # the reference: the same draws one at a time through the scalar engine
    cells, _ = matched(base, scn.uncertainty)
    drawn = sample(replace(scn.uncertainty, draws=SCALAR), cells)
    keys = [key for _, key in cells]

    def scalar() -> None:
        for j in range(SCALAR):
            decide_with(base, what_if(base, {k: float(np.asarray(drawn[k])[j]) for k in keys}))
    per_draw = best_of(scalar, repeat=1) / SCALAR
    print(f"uncertainty: {DRAWS:,} draws of a five-option scenario ({len(keys)} uncertain inputs): "
          f"{vector:.2f} s vectorised (best of 3, one core)")
    print(f"reference: the scalar engine, {per_draw * 1e3:.1f} ms a draw ({SCALAR} draws) -> "
          f"{per_draw * DRAWS:,.0f} s for {DRAWS:,}; vectorised is {per_draw * DRAWS / vector:,.0f}x faster")
    print("win shares: " + ", ".join(f"{o.option} {o.win_probability:.1%}" for o in spread.options))


if __name__ == "__main__":
    main()
