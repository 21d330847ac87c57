"""The scenario over many draws of its uncertain inputs: the formula graph evaluated on numpy arrays (every draw at
once, in chunks), the fleet search included, and each decision taken in every draw, vectorised.

What moves: the quantities that read a drawn input (or a quantity that does) and that a decision reads; the rest keep
their one value. The options are the base evaluation's (a draw that makes an option not fit makes it infeasible
there; the engine does not add a sharded setup per draw)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import formulas as F
from ..catalog import BY_WIDTH
from ..decide import MONTHLY, checks, entity_of, holder, options_of, pair_of
from ..errors import Problem
from ..results import Decision, Option
from .language import Range, Uncertainty
from .summary import Simulation, spread_of

CHUNK = 20_000          # draws evaluated together: memory stays in tens of MB whatever the draw count


@dataclass(frozen=True)
class Plan:
    """What one option of a decision reads: the key of its value, its checks, and its monthly cost's key."""

    option: Option
    value: str | None
    checks: tuple
    monthly: str | None


def matched(r, unc: Uncertainty) -> tuple[list[tuple[Range, str]], list[Problem]]:
    """Each input cell a range moves (the most specific range for a cell wins: a path naming the id beats `*`), in
    the ranges' order; a warning for a range that moves nothing. A range on a compute efficiency also moves its
    8-bit figure where the device uses that and the scenario gives it no range of its own."""
    own = {(rg.kind, rg.id, rg.field) for rg in unc.ranges}
    chosen: dict[str, Range] = {}
    for rg in unc.ranges:
        group = getattr(r.scenario, rg.entries)
        for eid in (sorted(group) if rg.id == "*" else [rg.id]):
            names = [rg.field] + [f"{rg.field}_8bit" for _ in [0] if rg.field in BY_WIDTH
                                  and (rg.kind, eid, f"{rg.field}_8bit") not in own
                                  and (rg.kind, "*", f"{rg.field}_8bit") not in own]
            for name in names:
                key = f"{rg.kind}.{eid}.{name}"
                if key in r.inputs and (key not in chosen or (chosen[key].id == "*" and rg.id != "*")):
                    chosen[key] = rg
    out = [(rg.around(r.inputs[key].value.value, r.inputs[key].value.text), key) for rg in unc.ranges
           for key in sorted(k for k, x in chosen.items() if x is rg)]       # `within`: at each input's own value
    problems = []
    for rg in unc.ranges:
        if rg not in chosen.values():
            problems.append(Problem(rg.file, rg.line, rg.col, f"uncertainty.inputs.{rg.path}",
                                    "no compared workload reads this input (or a range naming its id wins), so the "
                                    "range moves nothing", "warning", code="range-unused"))
    for rg, key in out:
        x = r.inputs[key].value.value
        lo, hi = (rg.get("low"), rg.get("high")) if rg.shape != "lognormal" else (0.0, math.inf)
        if isinstance(x, (int, float)) and not lo <= x <= hi:
            problems.append(Problem(rg.file, rg.line, rg.col, f"uncertainty.inputs.{rg.path}",
                                    f"the scenario's value of {key} ({r.inputs[key].value.text}) lies outside the "
                                    f"range ({rg.words()}): the recommendation is made at that value, the draws "
                                    f"never take it", "warning", code="range-excludes-value"))
    return out, problems


def sample(unc: Uncertainty, cells: list[tuple[Range, str]]) -> dict[str, np.ndarray]:
    """The draws of every moved input: one uniform stream per cell, shared by the cells of a group (so they move
    together), each mapped through its range's inverse distribution. Deterministic for a seed."""
    rng = np.random.default_rng(unc.seed)
    shared: dict[str, np.ndarray] = {}
    out = {}
    for rg, key in cells:
        if rg.group:
            if rg.group not in shared:
                shared[rg.group] = uniform(rng, unc.draws)
            u = shared[rg.group]
        else:
            u = uniform(rng, unc.draws)
        out[key] = rg.quantile(u)
    return out


def uniform(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.clip(rng.random(n), 1e-12, 1 - 1e-12)


def simulate(r, draws: bool = True) -> tuple[Simulation | None, list[Problem]]:
    """The simulation of a scenario with an `uncertainty:` block (None without one, or without a decision; and
    without `draws`, which checks the ranges against the scenario but takes no draw)."""
    from ..evaluate import followers, run

    unc: Uncertainty | None = r.scenario.uncertainty
    if unc is None:
        return None, []
    cells, problems = matched(r, unc)
    if not cells or not r.decisions or not draws:
        return None, problems
    drawn = sample(unc, cells)
    follow = followers(r)
    drawn.update({k: v for key, v in list(drawn.items()) for k in follow.get(key, ())})
    base = run(r.pairs, r.input_values())
    plans = [plans_of(r, dec) for dec in r.decisions]
    ordered = moving_plan(r, set(drawn), {k for ps in plans for p in ps for k in reads(p)})
    n = unc.draws
    acc = [Accumulator(len(ps), n, reqs(ps)) for ps in plans]
    with np.errstate(all="ignore"):
        for lo in range(0, n, CHUNK):
            hi = min(n, lo + CHUNK)
            env = dict(base)
            env.update({k: v[lo:hi] for k, v in drawn.items()})
            for x in ordered:
                env[x.key] = F.evaluate(x.expr, env)
            for a, ps in zip(acc, plans):
                a.add(ps, env, lo, hi)
    spreads = tuple(spread_of(dec, ps_options(ps), a.values, a.passes, a.meets, a.monthly, drawn, cells)
                    for dec, ps, a in zip(r.decisions, plans, acc))
    return Simulation(unc, tuple(cells), spreads, {k: drawn[k] for _, k in cells}), problems


def ps_options(ps: list[Plan]) -> list[Option]:
    return [p.option for p in ps]


def plans_of(r, dec: Decision) -> list[Plan]:
    """Every option of the decision in the order the engine ranks ties (options_of), with what it reads."""
    ent = entity_of(r, dec)
    kinds = tuple(v.value for k, v in sorted(ent.values.items()) if k.startswith("options[")) if ent else ()
    by = {(o.workload or dec.workload, o.device if o.variant != "api" else None, o.variant): o for o in dec.options}
    out = []
    for w, device, variant, _ in options_of(r, dec.workload, dec.quantity, kinds or ("fleet", "busy_hours", "api")):
        o = by.get((w, device if variant != "api" else None, variant))
        if o is None:
            continue
        p = holder(r, dec, o)
        value = next((x.key for x in p.present() if x.d.id == o.quantity), None) if p else None
        own = pair_of(r, dec, o)
        monthly = next((x.key for x in own.present() if x.d.id == MONTHLY[o.variant]), None) if own else None
        out.append(Plan(o, value, tuple(checks(r, ent, w, device, variant)), monthly))
    return out


def reads(p: Plan) -> list[str]:
    return [k for k in (p.value, p.monthly) if k] + [ref.key for c in p.checks for ref in F.refs(c.expr)]


def moving_plan(r, drawn: set[str], targets: set[str]) -> list:
    """The quantities to re-evaluate per chunk, in evaluation order: those the decisions read (directly or through
    other quantities) that move with a drawn input."""
    cells = [x for p in r.pairs for stage in (p.planned, p.compared) for x in stage if not isinstance(x.expr, F.Missing)]
    by_key = {x.key: x for x in cells}
    needed, todo = set(), list(targets)
    while todo:
        k = todo.pop()
        if k in needed or k not in by_key:
            continue
        needed.add(k)
        todo += [ref.key for ref in F.refs(by_key[k].expr)]
    moved = set(drawn)
    out = []
    for x in cells:
        if x.key in needed and any(ref.key in moved for ref in F.refs(x.expr)):
            moved.add(x.key)
            out.append(x)
    return out


def reqs(ps: list[Plan]) -> list[str]:
    return list(dict.fromkeys(c.requirement for p in ps for c in p.checks))


class Accumulator:
    """Per option and draw: the objective's value, whether the option passes, each requirement met, monthly cost."""

    def __init__(self, k: int, n: int, requirements: list[str]):
        self.values = np.full((k, n), np.nan)
        self.monthly = np.full((k, n), np.nan)
        self.passes = np.zeros((k, n), dtype=bool)
        self.meets = {q: np.ones((k, n), dtype=bool) for q in requirements}

    def add(self, ps: list[Plan], env: dict[str, Any], lo: int, hi: int) -> None:
        m = hi - lo
        for i, p in enumerate(ps):
            v = numbers(env.get(p.value) if p.value else math.nan, m)
            ok = np.isfinite(v)
            for c in p.checks:
                good = met(c, env, m)
                self.meets[c.requirement][i, lo:hi] &= good
                ok &= good
            self.values[i, lo:hi] = v
            self.passes[i, lo:hi] = ok
            if p.monthly:
                self.monthly[i, lo:hi] = numbers(env.get(p.monthly), m)


def numbers(v: Any, m: int) -> np.ndarray:
    """A quantity's values over a chunk as floats (a value that is not a number reads as NaN)."""
    a = np.asarray(v)
    if a.dtype.kind not in "fiub":
        return np.full(m, np.nan)
    return np.broadcast_to(a.astype(float), (m,)).copy()


def met(c, env: dict[str, Any], m: int) -> np.ndarray:
    """A check on every draw of a chunk; met where what it reads has no value (as the engine's `met` says None, not
    a failure: the option is then not priced, which fails it anyway)."""
    unknown = np.zeros(m, dtype=bool)
    for ref in F.refs(c.expr):
        v = env.get(ref.key)
        if v is None:
            return np.ones(m, dtype=bool)
        a = np.asarray(v)
        if a.dtype.kind == "f":
            unknown |= np.broadcast_to(np.isnan(a), (m,))
    out = np.broadcast_to(np.asarray(F.evaluate(c.expr, env), dtype=bool), (m,))
    return out | unknown
