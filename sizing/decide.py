"""Decisions: options ranked by an objective on one workload, each with the requirements it fails.

The options of a decision are each compared device's fleet (held all month, on its stated cost basis), and, where
the objective is a cost the alternative has, the same device rented on demand for its busy hours only and a hosted
API. A requirement is a check over engine values (a quantity, an input) written once as an expression: the engine
evaluates it, the workbook writes it as a live formula. An option that is not priced (it does not fit, misses a
target) is never ranked, whatever the decision requires; nor is one over the budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import alternatives
from . import formulas as F
from . import kinds as K
from .kinds import objective_id
from .results import Decision, Failure, Option
from .schema import REQUIREMENTS, Entity

if TYPE_CHECKING:
    from .evaluate import Results

DEFAULT_REQUIREMENTS = ("fits_memory", "meets_targets")   # an option must run and meet its targets
# The quantity that gives an alternative's value, by the objective's quantity: absent, no such option.
VARIANT_QUANTITY = {
    "busy_hours": {"monthly_cost": "busy_hours_monthly_cost",
                   "cost_per_million_tokens": "busy_hours_cost_per_million_tokens",
                   "cost_per_million_requests": "busy_hours_cost_per_million_requests"},
    "api": {"monthly_cost": "api_monthly_cost", "cost_per_million_tokens": "api_cost_per_million_tokens"},
}
MONTHLY = {"fleet": "monthly_cost", "busy_hours": "busy_hours_monthly_cost", "api": "api_monthly_cost"}
SERVICES = ("busy_hours", "api")          # bought as a cloud service: neither on premises nor at the edge
FEASIBLE = (("fits_memory", "fits"), ("meets_targets", "meets_targets"), ("demand_consistent", "demand_consistent"))
BUDGETS = (("monthly", "budget_monthly"), ("capex", "budget_capex"), ("total", "budget_total"))
VARIANTS = ("fleet", "busy_hours", "api")


@dataclass(frozen=True)
class Check:
    """One requirement of one option: true when met. `quantity` names what it reads (for the reader)."""

    requirement: str
    workload: str
    quantity: str
    expr: F.Expr


def qkey(workload: str, device: str, qid: str) -> str:
    return f"{workload}/{device}/{qid}"


def budget_key(dec: Entity, field: str) -> str:
    return f"{dec.kind}.{dec.id}.budget.{field}"


def requirements_of(dec: Entity | None) -> tuple[str, ...]:
    given = [v.value for k, v in sorted(dec.values.items()) if k.startswith("require[")] if dec else []
    return tuple(given or DEFAULT_REQUIREMENTS)


def options_of(r: Results, wid: str, qid: str, kinds: tuple[str, ...] = VARIANTS) -> list[tuple[str, str, str, str]]:
    """(workload, device, variant, quantity) of every option: the fleets, then each device rented on demand as
    traffic needs, each for the workload and then each of its alternatives, then the hosted API; of the `kinds`
    the decision considers. Whether priced or not, so the workbook's columns hold whatever its inputs become."""
    wids = [wid] + [w.id for w in alternatives.of(r.scenario.workloads, wid)]
    out = [(w, did, "fleet", qid) for w in wids for did in devices_of(r, w, "fleet")] if "fleet" in kinds else []
    for variant in ("busy_hours", "api"):
        if variant not in kinds:
            continue
        vq = VARIANT_QUANTITY[variant].get(qid)
        for w in (wids[:1] if variant == "api" else wids):
            holders = [did for did in devices_of(r, w, variant) if (p := r.pair(w, did)) and vq in p.values]
            out += [(w, did, variant, vq) for did in (holders[:1] if variant == "api" else holders)]
    return out


def devices_of(r: Results, wid: str, variant: str = "") -> list[str]:
    """The devices a workload is ranked on: every compared device; for an automatic alternative only those it was
    added for (alternatives.ranked_on), a batch sizing found only in the ways of paying it saves in."""
    w = r.scenario.workloads[wid]
    return [d for d in r.scenario.compare if alternatives.ranked_on(w, d)
            and not (variant and w.found_as and (d, variant) not in w.found_as)]


def budget_quantity(field: str, variant: str) -> str | None:
    """What an option spends of a budget: its monthly cost, its capital (None: renting and the API need none),
    its run's cost."""
    if field == "capex":
        return "capex" if variant == "fleet" else None
    return "cost" if field == "total" else MONTHLY[variant]


def checks(r: Results, dec: Entity | None, wid: str, device: str, variant: str) -> list[Check]:
    """Every requirement of one option, as an expression over the engine's keys."""
    p = r.pair(wid, device)
    values = p.values if p else {}
    out = []
    for req in requirements_of(dec):
        qid = REQUIREMENTS.get(req, req)
        if variant in SERVICES and req in ("on-prem", "edge"):
            out.append(Check(req, wid, f"{variant}_in_cloud", F.Const(False)))
        elif variant == "api" and req == "meets_targets" and isinstance(values.get("api_meets_targets"), bool):
            out.append(Check(req, wid, "api_meets_targets", F.Ref(qkey(wid, device, "api_meets_targets"),
                                                                  "api_meets_targets")))
        elif variant != "api" and isinstance(values.get(qid), bool):
            out.append(Check(req, wid, qid, F.Ref(qkey(wid, device, qid), qid)))
            if req == "on-prem" and values.get(qid) is not False and isinstance(values.get("owned_fleet"), bool):
                out.append(Check(req, wid, "owned_fleet", F.Ref(qkey(wid, device, "owned_fleet"), "owned_fleet")))
    for field, role in BUDGETS:
        key = budget_key(dec, field) if dec else ""
        if key not in r.inputs:
            continue
        spent = budget_quantity(field, variant)
        if spent in values:
            ref = F.Ref(qkey(wid, device, spent), spent)
            out.append(Check("budget", wid, spent, F.unpriced_or(ref, ref <= F.Ref(key, role))))
    return out


def met(c: Check, env: dict[str, Any]) -> bool | None:
    """A check on the engine's values; None where what it reads has no value (an option not priced)."""
    if any(env.get(ref.key) is None for ref in F.refs(c.expr)):
        return None
    return bool(F.evaluate(c.expr, env))


def values_env(r: Results) -> dict[str, Any]:
    env: dict[str, Any] = {k: i.value.value for k, i in r.inputs.items()}
    for p in r.pairs:
        env.update({qkey(p.workload, p.device, q): v for q, v in p.values.items()})
    return env


# What a benchmark record measures in place of a prediction: the objective, and the record's quantity.
MEASURED = {"cost_per_million_tokens": "cost_per_million_tokens_at_utilisation"}


def measurement(r: Results, wid: str, device: str, qid: str) -> tuple[str, str, float] | None:
    """(record, quantity, value) of a benchmark record that measures this workload on this device: measured
    beats predicted."""
    mq = MEASURED.get(qid)
    for b in r.scenario.benchmarks if mq else ():
        if b.get("workload") == wid and b.get("scenario_device") == device:
            p = next((x for x in r.pairs if x.workload == b.id and x.kind == "benchmark"), None)
            v = p.values.get(mq) if p else None
            if isinstance(v, float) and math.isfinite(v):
                return b.id, mq, v
    return None


def entity_of(r: Results, dec: Decision) -> Entity | None:
    """The scenario's `decision` entry a decision was made from (None for the default decision)."""
    return next((e for e in r.scenario.decisions if e.id == dec.id), None)


def pair_of(r: Results, dec: Decision, o: Option):
    """The pair whose figures price an option: its workload (the decision's, or an alternative) on its device."""
    return r.pair(o.workload or dec.workload, o.device)


def holder(r: Results, dec: Decision, o: Option):
    """The pair whose quantity `o.quantity` is the option's value: the record's where measured."""
    if o.measured_by:
        return next(p for p in r.pairs if p.workload == o.measured_by)
    return pair_of(r, dec, o)


def infeasible(r: Results, wid: str, device: str) -> list[Failure]:
    """Why a fleet is not priced, whatever the decision requires."""
    p = r.pair(wid, device)
    return [Failure(req, wid, qid) for req, qid in FEASIBLE if p and p.values.get(qid) is False]


def decide_one(r: Results, dec: Entity | None, env: dict[str, Any]) -> Decision | None:
    objective = dec.get("objective") if dec else "cost_per_million_tokens"
    wid = dec.get("workload") if dec else None
    if wid is None:
        wid = next((p.workload for p in r.pairs if K.get(p.kind).workload
                    and objective_id(objective, p.kind) in p.values), None)
    if wid is None:
        return None
    kind = r.scenario.workloads[wid].get("kind")
    qid = objective_id(objective, kind)
    d = F.definition(qid, kind)
    maximise = bool(d and d.maximise)
    unranked = []
    kinds = tuple(v.value for k, v in sorted(dec.values.items()) if k.startswith("options[")) if dec else ()
    for w, device, variant, vq in options_of(r, wid, qid, kinds or VARIANTS):
        p = r.pair(w, device)
        value = p.get(vq) if p else None
        fails = [Failure(c.requirement, c.workload, c.quantity) for c in checks(r, dec, w, device, variant)
                 if met(c, env) is False]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            value = None          # infeasible (not priced), or e.g. no rate at the workload's precision
            fails += [f for f in infeasible(r, w, device) if f not in fails]
            if not fails:
                fails.append(Failure("computable", w, vq))
        alt = r.scenario.workloads[w].alternative
        measured = measurement(r, w, device, vq) if variant == "fleet" else None
        if measured is not None and value is not None:
            record, mq, mv = measured
            unranked.append(Option(device, mv, tuple(fails), None, variant, mq, record, value, w, alt))
            continue
        unranked.append(Option(device, value, tuple(fails), None, variant, vq, workload=w, alternative=alt))
    sign = -1 if maximise else 1
    order = sorted(range(len(unranked)), key=lambda i: (bool(unranked[i].failures), unranked[i].value is None,
                                                        sign * unranked[i].value if unranked[i].value is not None
                                                        else 0, i))
    options = tuple(replace(o, rank=n + 1 if o.passes else None) for n, o in enumerate(unranked[i] for i in order))
    best = options[0] if options and options[0].passes else None
    budget = {f: r.inputs[budget_key(dec, f)].value.value for f, _ in BUDGETS
              if dec and budget_key(dec, f) in r.inputs}
    return Decision(objective, qid, d.unit if d else "", wid, maximise, requirements_of(dec), options,
                    best.id if best else None, dec.id if dec else "decision", budget,
                    dec.get("title", "") if dec else "")


def decide(r: Results) -> tuple[Decision, ...]:
    """One decision per `decision` entry (or the default one), in the scenario's order."""
    if not r.scenario.compare:
        return ()                         # no option to rank
    env = values_env(r)
    entries = r.scenario.decisions or [None]
    return tuple(d for d in (decide_one(r, dec, env) for dec in entries) if d is not None)
