"""Shared test helpers: load and evaluate a scenario file or inline YAML."""

from __future__ import annotations

from pathlib import Path

from sizing.evaluate import Results, evaluate
from sizing.scenario import load_scenario, load_scenario_bytes

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def results_of(name: str) -> Results:
    scn, problems = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    assert scn is not None, problems
    return evaluate(scn)


def problems_of(text: str, name: str = "s.yaml") -> list[str]:
    """Every problem of an inline scenario, as printed lines."""
    scn, problems = load_scenario_bytes(text.encode(), name)
    if scn is not None:
        problems = problems + evaluate(scn).problems
    return [str(p) for p in problems]


def value(r: Results, workload: str, device: str, qid: str):
    pair = r.pair(workload, device)
    assert pair is not None, (workload, device)
    return pair.values[qid]


def family_figure(family: str, name: str) -> float:
    """A device family's default figure in SI units (fractions as shares, times in seconds)."""
    from sizing.binding import figure
    from sizing.catalog import family_defaults
    return figure(name.removesuffix("_8bit"), str(family_defaults()[family][name]["value"]))[0]
