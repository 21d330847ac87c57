"""Bind a scenario to the formula graph: every (workload, device) pair, sweeps, crossovers and the decision."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from . import alternatives
from . import formulas as F
# Input and derived are re-exported
from .binding import Binder, Input, derived, input_values, not_offered, pair_plan  # noqa: F401
from .errors import Problem
from .pair_warnings import unfitting, warnings
from .formulas.graph import Planned, QuantityDef
from .decide import BUDGETS, decide
from .results import Crossover, Decision
from .schema import Entity, Scenario

# Sweep parameters that are not a field of the same name.
SWEEP_ALIASES = {"size": ("m", "n", "k"), "utilisation": ("traffic.utilisation",)}


def sweep_paths(parameter: str) -> tuple[str, ...]:
    """The workload field paths a sweep parameter sets."""
    return SWEEP_ALIASES.get(parameter, (parameter,))


@dataclass
class Pair:
    """One workload evaluated on one device."""

    workload: str
    device: str
    kind: str
    planned: list[Planned]
    compared: list[Planned] = field(default_factory=list)   # relations to the other devices' pairs
    values: dict[str, Any] = field(default_factory=dict)
    absent: frozenset = frozenset()         # quantities not offered: a cost on a blank price or purchase cell

    def present(self) -> list[Planned]:
        """The quantities that apply to the pair."""
        return [p for p in self.cells() if p.d.id not in self.absent]

    def cells(self) -> list[Planned]:
        """Every quantity with a formula: those that apply, and the costs not offered (the workbook keeps them, live
        for a price or purchase typed into a blank cell)."""
        return [p for p in self.planned + self.compared if not isinstance(p.expr, F.Missing)]

    def get(self, qid: str, default: Any = None) -> Any:
        return self.values.get(qid, default)


@dataclass
class SweepResult:
    parameter: str
    workload: str
    values: list
    series: dict[str, dict[str, Any]]           # device -> quantity -> numpy array (or list) of values
    crossovers: list[Crossover]
    shown: tuple[str, ...] = ()                 # what terminal, workbook and report show: quantities that move


@dataclass
class Results:
    scenario: Scenario
    inputs: dict[str, Input]
    pairs: list[Pair]
    sweeps: list[SweepResult]
    decisions: tuple[Decision, ...]
    problems: list[Problem]
    crossovers: list[Crossover] = field(default_factory=list)   # found without a sweep (matmul size)
    blanks: dict[str, Input] = field(default_factory=dict)      # cost cells left blank (binding.Binder.blank)
    grids: list = field(default_factory=list)                   # two-field sweeps (sweeps.GridResult)
    simulation: Any = None          # the draws of an `uncertainty:` block (sizing.uncertainty.summary.Simulation)
    taken: dict = field(default_factory=dict, init=False, repr=False, compare=False)   # what-ifs run (decide_each)
    written: Any = field(default=None, repr=False, compare=False)   # without the batches sizing found (a batch grid's)

    def input_values(self) -> dict[str, Any]:
        """key -> value of every input cell (blank ones as they read)."""
        return input_values(self.inputs, self.blanks)

    @property
    def decision(self) -> Decision | None:
        """The first decision (the one a scenario with a single `decision` block has)."""
        return self.decisions[0] if self.decisions else None

    def pair(self, workload: str, device: str) -> Pair | None:
        return next((p for p in self.pairs if p.workload == workload and p.device == device), None)


def comparison_plans(pairs: list[Pair]) -> None:
    """Append the cross-device quantities (speed-up against each other device) to each pair."""
    by_workload: dict[str, list[Pair]] = {}
    for p in pairs:
        by_workload.setdefault(p.workload, []).append(p)
    for c in F.COMPARISONS:
        for group in by_workload.values():          # only a workload's own pairs: linear in the workloads
            base = [plan_ref(p, c.base) for p in group]
            for p, this in zip(group, base):
                if p.kind not in c.kinds:
                    continue
                compare_with(p, this, group, base, c)


def compare_with(p: Pair, this: F.Ref | None, group: list[Pair], base: list[F.Ref | None], c) -> None:
    """Append to p its speed-up against each other device of its workload."""
    for other, that in zip(group, base):
        if other is p or this is None or that is None:
            continue
        d = QuantityDef(f"{c.id}_{other.device}", c.unit, f"{c.description} ({other.device})", c.kinds, c.fn)
        p.compared.append(Planned(d, c.fn(this, that), f"{p.workload}/{p.device}/{d.id}"))


def plan_ref(p: Pair, qid: str) -> F.Ref | None:
    return next((F.Ref(x.key, qid) for x in p.planned if x.d.id == qid and not isinstance(x.expr, F.Missing)), None)


# -- evaluation -----------------------------------------------------------------------------

def run(pairs: list[Pair], env: dict[str, Any], stages: tuple[str, ...] = ("planned", "compared")) -> dict[str, Any]:
    """Evaluate every present quantity of the pairs in order; env gains the results. The comparisons read
    the other devices' pairs: run only "planned" when not every pair of the workload is run."""
    for stage in stages:
        for p in pairs:
            for x in getattr(p, stage):
                if not isinstance(x.expr, F.Missing):
                    env[x.key] = F.evaluate(x.expr, env)
    return env


def scalar(v: Any) -> Any:
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.floating, np.integer, int, float)):
        return None if math.isnan(v) else float(v)      # no value (e.g. never compute-bound)
    if isinstance(v, np.ndarray) and v.shape == ():
        return scalar(v.item())
    return v


def evaluate(scn: Scenario, problems_only: bool = False, search: bool = True) -> Results:
    """Evaluate every pair named by `compare`, then sweeps and the decision; where a decided serving workload
    does not fit a device it may use more of, again with that setup as an automatic alternative. `problems_only`
    (validate) checks that the sweep and the uncertainty's draws can be taken without taking them (they find no
    problem of their own). `search`: rank each device's cheapest batch too, as an automatic alternative, where a
    decided workload states a latency target (batch_search.found; a grid over the batch keeps the batches as
    written)."""
    with np.errstate(all="ignore"):            # inf and nan are the engine's answers (no value, does not fit)
        return evaluated(scn, problems_only, search)


def evaluated(scn: Scenario, problems_only: bool, search: bool = True) -> Results:
    results = evaluate_once(scn)
    wider = alternatives.sharded(scn, results)
    results = evaluate_once(wider) if wider is not None else results
    if search and results.decisions:
        from .batch_search import found
        more = found(results.scenario, results)
        if more is not None:
            written, results = results, evaluate_once(more)
            results.written = written
    take_sweeps(results, problems_only)
    if scn.uncertainty is not None:
        from .uncertainty.engine import simulate
        results.simulation, found = simulate(results, draws=not problems_only)
        results.problems = sorted(results.problems + found)
    return results


def evaluate_once(scn: Scenario) -> Results:
    binder = Binder(scn)
    pairs = []
    for w in scn.workloads.values():
        for did in scn.compare:
            if w.found and did not in w.found:
                continue                        # a batch sizing found is an option on the devices it was found for
            d = scn.devices[did]
            plan = pair_plan(binder, w, d)
            pairs.append(Pair(w.id, did, w.get("kind"), plan, absent=not_offered(binder, w, d, plan)))
    pairs += benchmark_pairs(binder, scn, pairs)
    comparison_plans(pairs)
    env = run(pairs, binder.values())
    for p in pairs:
        p.values = {x.d.id: scalar(env[x.key]) for x in p.present()}
    problems = warnings(scn, pairs, binder.blanks) + ([] if scn.decisions else unfitting(scn, pairs))
    for dec in scn.decisions:
        for field_name, role in BUDGETS:
            binder.add(role, dec, f"budget.{field_name}")
    results = Results(scn, binder.inputs, pairs, [], (), problems, blanks=binder.blanks)
    results.decisions = decide(results)
    return results


def take_sweeps(results: Results, problems_only: bool) -> None:
    """The sweep (or the grid of a two-field sweep) and the matrix-size crossovers of the evaluated scenario;
    `problems_only` (validate) checks that the sweep has a field to sweep without taking it (taking it finds no
    problem of its own)."""
    from .sweeps import grids, size_crossovers, sweep, swept   # sweeps re-run the pairs this module defines

    scn, s = results.scenario, results.scenario.sweep
    env = results.input_values()
    if s is not None:
        if problems_only:
            found = swept(scn, results.inputs)
        elif s.by is None:
            results.sweeps = sweep(scn, results.inputs, results.pairs, env)
            found = bool(results.sweeps)
        else:
            results.grids = grids(scn, results)
            found = bool(results.grids)
        if not found:
            fields = f"both '{s.parameter}' and '{s.by.parameter}'" if s.by else f"'{s.parameter}'"
            results.problems.append(Problem(scn.file, s.line, s.col, f"sweep.{s.parameter}",
                                            f"no compared workload has {fields} to sweep; nothing was swept",
                                            "warning", code="nothing-swept"))
    if not problems_only:
        results.crossovers = size_crossovers(scn, results.pairs, env, results.sweeps)


def benchmark_pairs(binder: Binder, scn: Scenario, pairs: list[Pair]) -> list[Pair]:
    out = []
    for b in scn.benchmarks:
        tp = b.values["throughput_output_tokens_per_s"]
        price = b.values["hourly_cost_usd"]
        refs = {
            "measured_throughput": binder.add("measured_throughput", b, "throughput_output_tokens_per_s",
                                              replace(tp, unit="token/s")),
            "measured_price": binder.add("measured_price", b, "hourly_cost_usd",
                                         replace(price, value=price.value / 3600, unit="USD/s")),
            "utilisation": binder.add("utilisation", b, "utilisation",
                                      b.values.get("utilisation") or derived(b, 1.0, "", "100 %",
                                                                             "default: busy all the time")),
        }
        refs.update(calibration_refs(binder, pairs, b))
        planned = F.plan("benchmark", refs, {}, f"{b.id}/record/")
        out.append(Pair(b.id, b.get("device", "record"), "benchmark", planned))
    return out


def calibration_refs(binder: Binder, pairs: list[Pair], b: Entity) -> dict[str, F.Ref]:
    """Tie a record to the scenario's prediction of the same configuration (`workload` on `scenario_device`)."""
    wid, did = b.get("workload"), b.get("scenario_device")
    pair = next((p for p in pairs if p.workload == wid and p.device == did), None)
    prediction = plan_ref(pair, "tokens_per_s") if pair else None
    if prediction is None:                # not compared, or no rate at the precision: nothing to calibrate
        return {}
    w, d = binder.scn.workloads[wid], binder.scn.devices[did]
    used = binder.pair_inputs(w, d, w.get("precision"))      # the efficiencies the prediction ran at (stated or
    out = {"prediction": prediction,                          # the family's defaults)
           "efficiency_now": used.get("efficiency"), "bandwidth_efficiency_now": used.get("bandwidth_efficiency")}
    return {k: v for k, v in out.items() if v is not None}


def what_if(results: Results, overrides: dict[str, Any], pairs: list[Pair] | None = None) -> dict[str, Any]:
    """Re-run the engine with some inputs replaced (scalars or numpy arrays); returns keys workload/device/qid."""
    env = results.input_values()
    follow = followers(results)
    env.update({k: v for key, v in overrides.items() for k in follow.get(key, ())})
    env.update(overrides)
    return run(results.pairs if pairs is None else pairs, env)


def followers(r: Results) -> dict[str, list[str]]:
    """Each workload input -> the inputs of its alternatives that take their value from it (as the workbook's
    cells follow it): a what-if that moves the workload's input moves theirs."""
    out: dict[str, list[str]] = {}
    for key in r.inputs:
        base = alternatives.inherited(r.inputs, r.scenario.workloads, key)
        if base is not None:
            out.setdefault(base, []).append(key)
    return out


def decide_with(results: Results, env: dict[str, Any], which: int = 0) -> Decision | None:
    """The engine's decision (the first, or number `which`) on the values of a what-if run."""
    pairs = [replace(p, values={x.d.id: scalar(env[x.key]) for x in p.present()}) for p in results.pairs]
    inputs = {k: replace(i, value=replace(i.value, value=scalar(env[k]))) if k in env else i
              for k, i in results.inputs.items()}
    decided = decide(replace(results, pairs=pairs, inputs=inputs))
    return decided[which] if len(decided) > which else None


def decide_each(r: Results, changes: list[tuple[str, float]], which: int = 0) -> list[Decision | None]:
    """The engine's decision (number `which`) with each (input, value) applied alone, in one vectorised run."""
    return [d for d, _ in decide_each_with(r, changes, which)]


def decide_each_with(r: Results, changes: list[tuple[str, float]], which: int = 0,
                     keys: tuple[str, ...] = ()) -> list[tuple[Decision | None, dict[str, Any]]]:
    """decide_each, with the values of the cells `keys` (quantities' keys) in each run beside its decision. A run
    already taken on these results is not taken again (the risks of each option and each page ask the same)."""
    asked = (which, tuple(changes), tuple(keys))
    if asked not in r.taken:
        r.taken[asked] = taken(r, changes, which, keys)
    return r.taken[asked]


def taken(r: Results, changes: list[tuple[str, float]], which: int, keys: tuple[str, ...]
          ) -> list[tuple[Decision | None, dict[str, Any]]]:
    n = len(changes)
    env: dict[str, Any] = r.input_values()
    follow = followers(r)
    for j, (key, v) in enumerate(changes):
        for k in (key, *follow.get(key, ())):          # an alternative's input it does not set moves with it
            if not isinstance(env[k], np.ndarray):
                env[k] = np.full(n, env[k], dtype=float)
            env[k][j] = v
    run(r.pairs, env)
    out = []
    for j in range(n):
        one = {k: v[j] if isinstance(v, np.ndarray) and v.shape == (n,) else v for k, v in env.items()}
        out.append((decide_with(r, one, which), {k: scalar(one[k]) for k in keys if k in one}))
    return out
