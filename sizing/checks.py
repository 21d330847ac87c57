"""Consistency checks of a scenario beyond its fields: parallel layouts and traffic, keys that belong to another
kind, the compared devices, the decision and the benchmark records (warnings across entities: cross_checks)."""

from __future__ import annotations

import difflib
import re
from dataclasses import replace

from . import kinds as K
from . import schema as S
from .formulas import QUANTITIES, quantity_defs
from .loader import Node
from .currency import codes_in
from .schema import Checker, Entity, Value

CHECK_PREFIXES = ("fits", "meets_", "available_", "cheaper_")   # true/false checks: requirements, not objectives


NOT_RANKABLE = ("bound",)                                        # text, not a number
LOW_PLAN = 0.10           # a planned maximum utilisation below it is more likely a slip (0.8 % for 80 %) than a plan


def check_parallel(chk: Checker, ent: Entity, kind: str, path: str) -> None:
    """The parallel layout must multiply to the devices it splits: the counts written, not a default (an
    alternative is checked with its workload's defaults in place, the workload before them)."""
    tensor, pipeline = ent.get("parallel.tensor"), ent.get("parallel.pipeline", 1)
    counts = [(p, v) for p, v in ent.values.items()
              if (p == "devices" or p.startswith("devices.")) and v.source != "default"]
    for p, v in counts:
        if kind == "generate":
            if tensor is not None and tensor * pipeline != v.value:
                chk.problem(ent.values["parallel.tensor"], f"{path}.parallel",
                            f"tensor ({tensor}) × pipeline ({pipeline}) is {tensor * pipeline}, but `{p}` is "
                            f"{v.value}; make the product equal the devices of a replica", "parallel-mismatch")
            elif v.value % pipeline:
                chk.problem(v, f"{path}.{p}", f"{v.value} devices do not split into {pipeline} pipeline stages; "
                            "give a multiple of parallel.pipeline", "parallel-mismatch")
            if ent.get("parallel.expert", 1) > v.value:
                chk.problem(ent.values["parallel.expert"], f"{path}.parallel.expert",
                            f"{ent.get('parallel.expert')} expert-parallel ways exceed the {v.value} devices of a "
                            "replica", "parallel-mismatch")
        elif kind == "train":
            split = (tensor or 1) * pipeline * ent.get("parallel.data", 1)
            if v.value % ((tensor or 1) * pipeline) or (ent.has("parallel.data") and split != v.value):
                chk.problem(v, f"{path}.{p}", f"{v.value} devices do not split into tensor × pipeline × data = "
                            f"{tensor or 1} × {pipeline} × {ent.get('parallel.data', 'any')}; give devices that "
                            "the layout multiplies to", "parallel-mismatch")


def check_traffic(chk: Checker, ent: Entity, path: str, given: dict | None = None) -> None:
    """The average traffic is at most the peak, and given once (average, or utilisation of the peak). For an
    alternative, `given` is what it sets: the problem is located at its value."""
    avg, peak = ent.values.get("traffic.average"), ent.values.get("traffic.peak")
    mine = given or {}
    if avg is not None and peak is not None and avg.value > peak.value:
        at = "peak" if "traffic.peak" in mine and "traffic.average" not in mine else "average"
        chk.problem(avg if at == "average" else peak, f"{path}.traffic.{at}",
                    f"the average '{avg.text}' is above the peak '{peak.text}'", "average-above-peak")
    planned = ent.values.get("traffic.max_utilisation")
    if planned is not None and planned.source != "default" and 0 < planned.value < LOW_PLAN and \
            (not given or "traffic.max_utilisation" in mine):
        chk.problem(planned, f"{path}.traffic.max_utilisation", f"'{planned.text}' plans each replica busy under "
                    f"{LOW_PLAN * 100:g} % of the time at the peak, so the fleet holds about {1 / planned.value:,.0f} "
                    f"times the capacity the peak uses; did you mean {planned.value * 10_000:g} %? (60-85 % is usual)",
                    "low-utilisation", "warning")
    util = ent.values.get("traffic.utilisation")
    if avg is not None and util is not None:
        at = "average" if "traffic.average" in mine and "traffic.utilisation" not in mine else "utilisation"
        chk.problem(avg if at == "average" else util, f"{path}.traffic.{at}", "give the average or the "
                    "utilisation, not both: the utilisation is the average as a share of the peak",
                    "average-and-utilisation")


def explain_foreign_keys(chk: Checker, since: int, kind: str) -> None:
    """Rewrite 'unknown key' for a key that belongs to another workload kind."""
    for i in range(since, len(chk.problems)):
        p = chk.problems[i]
        name = p.path.rsplit(".", 1)[-1]
        if p.code == "unknown-key" and p.path.count(".") == 2 and name in S.ALL_WORKLOAD_FIELDS:
            kinds = [k for k, fs in S.WORKLOAD_FIELDS.items() if any(f.name == name for f in fs)]
            msg = f"'{name}' does not apply to a {kind} workload (it is a field of {', '.join(kinds)})"
            chk.problems[i] = replace(p, message=msg)


def suggest(name: str, options, cutoff: float = 0.5) -> str:
    close = difflib.get_close_matches(name, list(options), n=1, cutoff=cutoff)
    return f"; did you mean '{close[0]}'?" if close else ""


def stems(text: str) -> set[str]:
    """The words of an id or a phrase, plural and adverb endings off: 'cost per month' {cost, per, month}."""
    return {re.sub(r"(?:ly|s)$", "", w) for w in re.split(r"[\s_\-]+", text.lower()) if len(w) > 2}


def suggest_quantity(name: str, options) -> str:
    """The quantity sharing the most words with a phrase ('cost per month': monthly_cost, the shortest of those
    with both words), else the closest spelling."""
    words = stems(name)
    scored = sorted((-len(words & stems(o)), len(o), o) for o in options if words & stems(o))
    if len(words) > 1 and scored and -scored[0][0] >= 2:
        return f"; did you mean '{scored[0][2]}'?"
    return suggest(name, options)


def compare_list(chk: Checker, node: Node | None, devices: dict) -> list[str]:
    if node is None:
        if len(devices) > S.MAX_COMPARED:
            first = next(iter(devices.values()))
            chk.problem(first, "devices", f"{len(devices):,} devices and no `compare`, which would compare them all; "
                        f"at most {S.MAX_COMPARED} are compared at once: name them in `compare: [...]`",
                        "out-of-range")
        return list(devices)
    vals: dict[str, Value] = {}
    chk.field(node, S.TOP["compare"], "compare", vals, "compare")
    out = []
    for v in vals.values():
        if v.value not in devices:
            chk.problem(v, "compare", f"unknown device '{v.value}'{unknown_device(v.value, devices)}",
                        "unknown-reference")
        elif v.value in out:
            chk.problem(v, "compare", f"'{v.value}' is listed twice", "duplicate-entry")
        else:
            out.append(v.value)
    if len(out) > S.MAX_COMPARED:
        chk.problem(node, "compare", f"compares {len(out):,} devices; at most {S.MAX_COMPARED} are compared at once "
                    "(each is a column of every table); compare fewer", "out-of-range")
    if not vals and not any(p.path == "compare" for p in chk.problems):
        chk.problem(node, "compare", "lists no device, so no workload is evaluated; name devices, or leave "
                    "'compare' out to evaluate every device", "nothing-compared", "warning")
    return out


def unknown_device(name: str, devices: dict) -> str:
    """What `compare` can name: this scenario's devices (a close spelling first); a catalog entry enters with
    `from:` under devices."""
    from .scenario import catalog
    ids = list(devices)
    listed = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
    entry = (f"the catalog entry '{name}' enters with `from: {name}`" if name in catalog()[0] else
             f"a catalog device enters with `from:`; `sizing catalog` lists them, and none is named '{name}'")
    return f"{suggest(name, ids, cutoff=0.7)} (the scenario's devices: {listed}; {entry})"


def check_benchmarks(chk: Checker, benches: list[Entity], devices: dict, workloads: dict) -> None:
    """Record ids are unique; a record's `workload` is a generate workload and its device a known one."""
    seen: dict[str, Entity] = {}
    for b in benches:
        if b.id in seen or b.id in workloads:
            chk.problem(b, f"benchmarks.{b.id}", f"the id '{b.id}' is used twice; give each record its own `id`",
                        "duplicate-entry")
        seen[b.id] = b
        for key, table in (("workload", workloads), ("scenario_device", devices)):
            ref = b.values.get(key)
            if ref is not None and ref.value not in table:
                chk.problem(ref, f"benchmarks.{b.id}.{key}", f"unknown {'workload' if key == 'workload' else 'device'} "
                            f"'{ref.value}'{suggest(ref.value, table)}", "unknown-reference")
            elif key == "workload" and ref is not None and table[ref.value].get("kind") != "generate":
                chk.problem(ref, f"benchmarks.{b.id}.workload", f"'{ref.value}' is not a generate workload; a record "
                            "predicts output tokens per second, which only generate workloads compute",
                            "wrong-workload-kind")


def check_decision(chk: Checker, decision: Entity, workloads: dict, path: str = "decision") -> None:
    """The decision names a known workload and a quantity computed for it (the checker knows requirements)."""
    ref = decision.values.get("workload")
    if ref and ref.value not in workloads:
        chk.problem(ref, f"{path}.workload", f"unknown workload '{ref.value}'{suggest(ref.value, workloads)}",
                    "unknown-reference")
    obj = decision.values["objective"]
    chosen = [workloads[ref.value]] if ref and ref.value in workloads else list(workloads.values())
    kinds = {w.get("kind") for w in chosen if w.get("kind") in K.WORKLOAD_KINDS}
    known = {d.id for d in QUANTITIES if d.id not in NOT_RANKABLE and not d.id.startswith(CHECK_PREFIXES)}
    ids = {d.id for k in kinds for d in quantity_defs(k)}
    if obj.value not in known | set(K.OBJECTIVE_WORDS):
        hint = suggest_quantity(obj.value, (known & ids) or known) or \
            "; e.g. latency, cost or monthly_cost (`sizing evaluate` lists the quantities of each workload)"
        what = f"'{obj.value}' is a check or a label, not a number to rank by" if obj.value in \
            {d.id for d in QUANTITIES} else f"unknown quantity '{obj.value}'"
        chk.problem(obj, f"{path}.objective", f"{what}{hint}", "unknown-quantity")
    elif kinds and not any(K.objective_id(obj.value, k) in ids for k in kinds):
        what = f"workload '{ref.value}'" if ref else "any workload of this scenario"
        fits = [x for x in ("cost", "monthly_cost", "duration", "latency", "tokens_per_s")
                if any(K.objective_id(x, k) in ids for k in kinds)][:3] or ["latency"]    # never the value refused
        said = " or ".join(filter(None, (", ".join(fits[:-1]), fits[-1])))   # (monthly_cost was suggested for it)
        chk.problem(obj, f"{path}.objective", f"'{obj.value}' is not computed for {what} "
                    f"({', '.join(sorted(kinds))}); e.g. {said}", "objective-not-computed")
    if ref and ref.value in workloads:
        check_budget(chk, decision, workloads[ref.value].get("kind"), path)
        kinds_asked = [v for k, v in sorted(decision.values.items()) if k.startswith("options[")]
        w = workloads[ref.value]
        if kinds_asked and all(v.value == "api" for v in kinds_asked) and not w.has("api.output_price"):
            chk.problem(kinds_asked[0], f"{path}.options", f"only the hosted API is asked for, but workload "
                        f"'{w.id}' gives no api prices; add api: {{output_price: ...}} to it or rank fleet or "
                        f"busy_hours too", "objective-not-computed")


BUDGET_APPLIES = {"monthly": ("generate", "forward"), "capex": ("generate", "forward"), "total": ("train",)}


def check_budget(chk: Checker, decision: Entity, kind: str, path: str) -> None:
    """A budget the decided workload has no figure for is an error, not a check silently skipped."""
    for name, kinds in BUDGET_APPLIES.items():
        v = decision.values.get(f"budget.{name}")
        if v is not None and kind not in kinds:
            right = {"train": "give total (the run's cost)", "matmul": "it has no cost to keep within"}.get(
                kind, "give monthly or capex")
            chk.problem(v, f"{path}.budget.{name}", f"a {name} budget does not apply to a {kind} workload; {right}",
                        "budget-not-applicable")


def check_currency(chk: Checker, meta: dict, entities: list[Entity]) -> None:
    """Every amount is in the scenario's currency: an amount written in another, a catalog price (catalog prices
    are USD) or a record's USD price in a scenario of another currency is a located error (no conversion)."""
    code = meta["currency"].value if "currency" in meta else "USD"
    for ent in entities:
        for path, v in ent.values.items():
            money = path == "hourly_cost_usd" or (v.unit is not None and "USD" in v.unit)
            if not money:
                continue
            typed = v.source.startswith("scenario") and path != "hourly_cost_usd"   # a record's price is USD
            named = codes_in(v.text) if typed else {"USD"}
            other = sorted(named - {code})
            if other:
                where = v if v.source.startswith("scenario") else ent       # a catalog value: the entry naming it
                prefix = {"decision": "decision"}.get(ent.kind, f"{ent.kind}s.{ent.id}")
                what = f"'{v.text}'" if v.source.startswith("scenario") else f"the {v.source.split(':')[0]} " \
                    f"value '{v.text}'"
                chk.problem(where, f"{prefix}.{path}",
                            f"{what} is in {', '.join(other)}, but this scenario's currency is {code} and no "
                            f"amount is converted: give {path} in {code}", "currency-mismatch")


def check_sweep_size(chk: Checker, sweep, compare: list[str]) -> None:
    """A sweep's points times the devices compared stay within what `build` renders in a minute."""
    if sweep is None or sweep.by is not None or sweep.parameter == "precision":
        return
    swept = len(sweep.values) * max(1, len(compare))
    if swept > S.MAX_SWEPT:
        chk.problem(sweep, "sweep", f"{len(sweep.values):,} points on {len(compare)} devices are {swept:,} "
                    f"evaluations; at most {S.MAX_SWEPT:,}: sweep fewer points or compare fewer devices",
                    "out-of-range")


def check_pairs(chk: Checker, workloads: dict, compare: list[str]) -> None:
    """Workloads (alternatives included) times compared devices stay within what `build` renders in a minute."""
    pairs = len(workloads) * len(compare)
    if pairs > S.MAX_PAIRS and workloads:
        first = next(iter(workloads.values()))
        chk.problem(first, "workloads", f"{len(workloads):,} workloads (alternatives included) on {len(compare)} "
                    f"devices are {pairs:,} evaluations; at most {S.MAX_PAIRS}: split the scenario or compare fewer "
                    "devices", "out-of-range")
