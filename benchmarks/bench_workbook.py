"""Time writing the workbook: the largest shipped scenario and a 10,000-point live batch sweep."""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from sizing.evaluate import Results, evaluate
from sizing.render.workbook import build, names_of, workbook_bytes
from sizing.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
SWEEP_10K = "sweep: {batch: {from: 1, to: 10000, points: 10000}}"


def results_of(path: Path) -> Results:
    scn, problems = load_scenario(path)
    if scn is None:
        sys.exit("\n".join(map(str, problems)))
    return evaluate(scn)


def largest() -> tuple[Path, Results]:
    """The shipped scenario with the most named cells (inputs and quantities)."""
    evaluated = [(p, results_of(p)) for p in sorted((ROOT / "scenarios").glob("*.yaml"))]
    return max(evaluated, key=lambda pr: len(names_of(pr[1])))


def with_big_sweep(path: Path, folder: Path) -> Results:
    """The scenario with its sweep replaced by 10,000 batch values (a live grid of 10,000 rows)."""
    text = path.read_text()
    text = re.sub(r"^sweep:.*$", SWEEP_10K, text, flags=re.M) if re.search(r"^sweep:", text, re.M) \
        else text + "\n" + SWEEP_10K + "\n"
    copy = folder / f"{path.stem}-sweep-10k.yaml"
    copy.write_text(text)
    return results_of(copy)


def best_of(fn: Callable[[], bytes], runs: int) -> tuple[float, int]:
    """The fastest of `runs` calls, in seconds, and the size of what it wrote."""
    times, size = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        size = len(fn())
        times.append(time.perf_counter() - start)
    return min(times), size


def main() -> None:
    path, r = largest()
    seconds, size = best_of(lambda: workbook_bytes(r), runs=5)
    print(f"{path.name}: {len(names_of(r))} named cells, workbook {size / 1e3:,.0f} kB in {seconds * 1e3:,.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        big = with_big_sweep(path, Path(tmp))
        evaluated = time.perf_counter() - start
    points = sum(len(s.values) for s in big.sweeps)
    sweep = build(big).sheets["Sweep"]
    live, cells = len(sweep.columns[0].formulas), sum(len(c.formulas) for c in sweep.columns)
    seconds, size = best_of(lambda: workbook_bytes(big), runs=3)
    print(f"{path.name} with a {points:,}-point batch sweep: evaluated in {evaluated:.2f} s, workbook "
          f"{size / 1e6:,.1f} MB ({live:,} live rows, {cells:,} formula cells on Sweep) in {seconds:.1f} s")


if __name__ == "__main__":
    main()
