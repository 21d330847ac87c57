"""What the draws say: per option the probability it is the recommendation and that it meets each requirement, the
spread of its objective and monthly cost; the recommendation's expected regret; the inputs that drive the decision."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..results import Decision, Option
from .language import Range, Uncertainty

PERCENTILES = (5, 50, 95)
DRIVERS = 8             # the inputs a summary names, largest influence first


@dataclass(frozen=True)
class OptionSpread:
    option: str                             # Option.id
    win_probability: float                  # the cheapest (best) option that meets every requirement
    meets_probability: float                # meets every requirement (and is priced)
    meets: tuple[tuple[str, float], ...]    # each requirement
    objective: tuple[float, float, float] | None     # p5, p50, p95 over the draws where it has a value
    monthly: tuple[float, float, float] | None

    def as_dict(self) -> dict[str, Any]:
        p = dict(zip(("objective_p5", "objective_p50", "objective_p95"), self.objective or (None,) * 3))
        m = dict(zip(("monthly_cost_p5", "monthly_cost_p50", "monthly_cost_p95"), self.monthly or (None,) * 3))
        return {"option": self.option, "win_probability": self.win_probability,
                "meets_probability": self.meets_probability, "meets": dict(self.meets), **p, **m}


@dataclass(frozen=True)
class Driver:
    """An input and its rank correlation with the recommendation's lead: how far the next best option's value is
    from its own, as a share of the next best's (positive: a larger value helps it)."""

    key: str
    path: str
    rank_correlation: float

    def as_dict(self) -> dict[str, Any]:
        return {"input": self.key, "range": self.path, "rank_correlation": self.rank_correlation}


@dataclass(frozen=True)
class DecisionSpread:
    decision: str
    workload: str
    quantity: str
    unit: str
    recommendation: str | None          # the base evaluation's recommendation
    subject: str | None                 # the option the margin and regret speak of: the recommendation, else the
    options: tuple[OptionSpread, ...]   # option that wins most often
    none_qualifies: float               # share of draws where no option meets every requirement
    expected_regret: float | None       # E[subject's value - best value] over draws where the subject passes
    subject_fails: float                # share of draws where the subject fails a requirement
    behind: float                       # share of draws where the subject passes but another option is better
    behind_regret: float | None         # E[subject's value - best value] over those draws
    drivers: tuple[Driver, ...]
    winners: np.ndarray                 # per draw, the index into `order` of the winner (-1: none qualifies)
    order: tuple[str, ...]              # the options in the engine's tie order

    def option(self, oid: str) -> OptionSpread | None:
        return next((o for o in self.options if o.option == oid), None)

    def as_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "workload": self.workload, "quantity": self.quantity, "unit": self.unit,
                "recommendation": self.recommendation, "subject": self.subject,
                "options": [o.as_dict() for o in self.options], "none_qualifies_probability": self.none_qualifies,
                "expected_regret": self.expected_regret, "subject_fails_probability": self.subject_fails,
                "behind_probability": self.behind, "behind_regret": self.behind_regret,
                "drivers": [d.as_dict() for d in self.drivers]}


@dataclass(frozen=True)
class Simulation:
    spec: Uncertainty
    cells: tuple[tuple[Range, str], ...]        # (range, input key) of every moved input
    decisions: tuple[DecisionSpread, ...]
    draws: dict[str, np.ndarray]                # input key -> its draws

    def decision(self, did: str) -> DecisionSpread | None:
        return next((d for d in self.decisions if d.decision == did), None)

    def as_dict(self) -> dict[str, Any]:
        return {"draws": self.spec.draws, "seed": self.spec.seed,
                "inputs": [{"input": key, "range": rg.path, "shape": rg.shape, "bounds": dict(rg.bounds),
                            "written": dict(rg.texts), "group": rg.group or None} for rg, key in self.cells],
                "decisions": [d.as_dict() for d in self.decisions]}


def spread_of(dec: Decision, options: list[Option], values: np.ndarray, passes: np.ndarray,
              meets: dict[str, np.ndarray], monthly: np.ndarray, drawn: dict[str, np.ndarray],
              cells: list[tuple[Range, str]]) -> DecisionSpread:
    """The summary of one decision's draws (rows of the arrays: `options`, in the engine's tie order)."""
    k, n = values.shape
    score = np.where(passes, -values if dec.maximise else values, np.inf)
    winners = np.where(passes.any(axis=0), np.argmin(score, axis=0), -1)
    order = tuple(o.id for o in options)
    base = order.index(dec.recommendation) if dec.recommendation in order else None
    counts = np.bincount(winners[winners >= 0], minlength=k)
    subject = base if base is not None else (int(np.argmax(counts)) if counts.any() else None)
    spreads = []
    for i, o in enumerate(options):
        spreads.append(OptionSpread(o.id, float(counts[i] / n), float(passes[i].mean()),
                                    tuple((q, float(m[i].mean())) for q, m in meets.items()),
                                    percentiles(values[i]), percentiles(monthly[i])))
    regret, fails, drivers, behind, behind_regret = None, 0.0, (), 0.0, None
    if subject is not None:
        mine = score[subject]
        others = np.delete(score, subject, axis=0)
        best_other = others.min(axis=0) if len(others) else np.full(n, np.inf)
        ok = passes[subject]
        fails = float(1 - ok.mean())
        best = np.minimum(mine, best_other)
        if ok.any():
            regret = float(np.mean((mine - best)[ok]))
        worse = ok & (mine > best)
        behind = float(worse.mean())
        if worse.any():
            behind_regret = float(np.mean((mine - best)[worse]))
        with np.errstate(divide="ignore", invalid="ignore"):      # the lead as a share of the next best's value
            lead = np.where(np.isfinite(best_other), (best_other - mine) / np.abs(best_other), np.inf)
        drivers = drivers_of(cells, drawn, ranks(np.where(ok, lead, -np.inf)))
    ordered = sorted(spreads, key=lambda s: (-s.win_probability, order.index(s.option)))
    return DecisionSpread(dec.id, dec.workload, dec.quantity, dec.unit, dec.recommendation,
                          order[subject] if subject is not None else None, tuple(ordered),
                          float(np.mean(winners < 0)), regret, fails, behind, behind_regret, drivers, winners, order)


def drivers_of(cells: list[tuple[Range, str]], drawn: dict[str, np.ndarray], margin: np.ndarray) -> tuple:
    """Each drawn input (a group once: its inputs move together) by the rank correlation of its draws with the
    margin's ranks, largest first."""
    seen, out = set(), []
    for rg, key in cells:
        if rg.group and rg.group in seen:
            continue
        seen.add(rg.group)
        name = f"group {rg.group}" if rg.group else key
        out.append(Driver(name, rg.path, correlation(ranks(drawn[key]), margin)))
    return tuple(sorted(out, key=lambda d: -abs(d.rank_correlation)))[:DRIVERS]


def percentiles(x: np.ndarray) -> tuple[float, float, float] | None:
    x = x[np.isfinite(x)]
    if not len(x):
        return None
    return tuple(float(v) for v in np.percentile(x, PERCENTILES))


def ranks(x: np.ndarray) -> np.ndarray:
    """Ranks with ties given their average rank (infinities rank as the largest or smallest)."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    starts = np.cumsum(counts) - counts
    return (starts + (counts - 1) / 2)[inverse]


def rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (0 where either does not vary)."""
    return correlation(ranks(x), ranks(y))


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    den = math.sqrt(float(a @ a) * float(b @ b))
    return float(a @ b / den) if den > 0 else 0.0
