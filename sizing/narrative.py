"""The sentences the terminal, the report and the workbook share: why an option wins or loses, what limits it,
findings, break-even and crossover points. They read the engine's typed results; renderers only place them."""

from __future__ import annotations

import math

from . import alternatives
from . import formulas as F
from .decide import holder, pair_of
from .evaluate import Pair, Results, scalar
from .formulas.common import MONTH
from .formulas.graph import QuantityDef
from .render.format import human, number
from .results import Crossover, Decision, Failure, Option
from .schema import REQUIREMENTS

REQUIRE_WORDS = {"fits_memory": "fit in memory", "fits": "fit in memory", "meets_targets": "meet the latency targets",
                 "cloud": "can be had in the cloud", "on-prem": "can be had on premises",
                 "edge": "can run at the edge"}


def label(qid: str, kind: str | None = None) -> str:
    """What a reader calls a quantity; pass the workload kind where ids are shared (train's `fits`)."""
    if qid.startswith("speedup_vs_"):
        return f"Speed-up vs {qid.removeprefix('speedup_vs_')}"
    d = F.definition(qid, kind)
    return d.label if d and d.label else qid.replace("_", " ").capitalize()


def defs(pairs: list[Pair]) -> dict[str, QuantityDef]:
    """Every quantity present in any of the pairs, in definition order (comparisons last)."""
    out: dict[str, QuantityDef] = {}
    for stage in ("planned", "compared"):
        for p in pairs:
            for x in getattr(p, stage):
                if not isinstance(x.expr, F.Missing):
                    out.setdefault(x.d.id, x.d)
    return out


def show(p: Pair | None, qid: str, d: QuantityDef | None = None) -> str:
    """An engine value, formatted for a person; an en dash where the quantity does not apply."""
    if p is None or qid not in p.values:
        return "–"
    d = d or next(x.d for x in p.present() if x.d.id == qid)
    return human(p.values[qid], d.unit, d.display)


def rate(p: Pair, qid: str) -> str:
    """A rate a sentence multiplies, to five significant digits (not rounded to cents), so the product checks."""
    d = next(x.d for x in p.present() if x.d.id == qid)
    return human(p.values[qid], d.unit, d.display, digits=5, cents=False)


def used_keys(pairs: list[Pair]) -> set[str]:
    """Keys every present formula of the pairs reads."""
    return {ref.key for p in pairs for x in p.present() for ref in F.refs(x.expr)}


def held_against(r: Results, p: Pair, check: str) -> tuple[float, float | None, str, str] | None:
    """A memory check's need and capacity for a pair: (need, capacity, need text, capacity text), from the
    quantities its definition compares; a capacity that is not a quantity is the device's `memory` input."""
    d = F.definition(check, p.kind)
    if d is None or d.compares is None or not isinstance(p.values.get(d.compares[0]), float):
        return None
    need, cap = d.compares
    if cap in p.values:
        return p.values[need], p.values[cap], show(p, need), show(p, cap)
    i = r.inputs.get(f"device.{p.device}.{cap}")
    return p.values[need], (i.value.value if i else None), show(p, need), (i.value.text if i else "–")


def input_text(r: Results, key: str) -> str | None:
    i = r.inputs.get(key)
    return i.value.text if i else None


def pairs_of(r: Results, wid: str) -> list[Pair]:
    return [p for p in r.pairs if p.workload == wid]


def workload_ids(r: Results) -> list[str]:
    return list(dict.fromkeys(p.workload for p in r.pairs))


def device_name(r: Results, did: str) -> str:
    d = r.scenario.devices.get(did)
    if d is None:
        return ""
    return " ".join(str(x) for x in (d.get("vendor"), d.get("name")) if x)


def workload_title(r: Results, wid: str) -> str:
    w = r.scenario.workloads.get(wid)
    title = w.get("title") if w else None
    return f"{title} ({wid})" if title else wid


def objective_words(dec: Decision) -> str:
    return label(dec.quantity).lower()


def role_value(r: Results, p: Pair, role: str):
    """The value of the input a pair's formulas read for `role` (e.g. its redundancy), or None."""
    key = next((ref.key for x in p.present() for ref in F.refs(x.expr)
                if ref.key in r.inputs and r.inputs[ref.key].role == role), None)
    return r.inputs[key].value.value if key else None


def fleet_words(r: Results, p: Pair | None, name: str = "") -> str:
    """What to buy or rent: the fleet the engine sized (named `name`, else its device), and its basis."""
    if p is None or "fleet_devices" not in p.values:
        return ""
    v = p.values
    spare = role_value(r, p, "redundancy")
    per = role_value(r, p, "replica_devices")
    replicas = f"{human(v['replicas'], '')} replica{'s' if v['replicas'] != 1 else ''}" + \
        (f" of {human(per, '')} devices" if per and per > 1 else "") + \
        (f" ({human(v['servers'], '')} for the peak + {human(spare, '')} spare)" if spare else "")
    basis = f"; {basis_words(r, p)}" if "cost_basis" in v else ""
    capital = f"; buying them costs {show(p, 'fleet_purchase')}" if "fleet_purchase" in v else ""
    return f"{human(v['fleet_devices'], '')} × {name or p.device}: {replicas}{basis}{capital}."


def why(r: Results, dec: Decision) -> tuple[str, list[str]]:
    """The dominant constraint behind the recommendation, in words, from the engine's values."""
    ranking = dec.options
    b = dec.best
    word = "highest" if dec.maximise else "lowest"
    req = [REQUIRE_WORDS.get(x, x.replace("_", " ")) for x in dec.require]
    if b is None:
        return "no option qualifies", [f"No option compared can {' and '.join(req)}"
                                       f"{' within the budget' if dec.budget else ''}; the verdicts below give each "
                                       f"option's shortfall in the engine's figures."]
    p = pair_of(r, dec, b)
    checked = [("finish by the deadline" if x == "meets_targets" and p.kind == "train" else
                REQUIRE_WORDS.get(x, x.replace("_", " "))) for x in dec.require
               if isinstance(p.values.get(REQUIREMENTS.get(x, x)), bool)]      # only what the pair checks
    if dec.budget:
        checked.append("keep within the budget")
    cond = f" among those that {' and '.join(checked)}" if checked and b.variant != "api" else ""
    name = option_name(b)
    if len(ranking) > 1:
        first = f"Of the {len(ranking)} options compared, {name} has the {word} {objective_words(dec)} " \
                f"({value_words(r, dec, b)}){cond}."
    else:
        first = f"The only option compared is {name}; its {objective_words(dec)} is {value_words(r, dec, b)}" + \
                (f" and it does {' and '.join(checked)}." if checked else ".")
    if b.variant == "api":
        first += f" {api_service_words(r, p)}"
    if b.alternative:
        first += f" {alternative_words(r, b)}"
    cheapest = min((o for o in ranking if o.value is not None),
                   key=lambda o: -o.value if dec.maximise else o.value, default=None)
    extra = money(r, p) if b.variant == "fleet" else [cost_sentence(r, dec, b)]
    if p.kind == "train" and (run := cost_driver(r, dec, b)):
        extra = [f"The run costs{run}."] + extra
    if cheapest is not None and cheapest.id != b.id and cheapest.failures:
        tag = failure_tag(cheapest.failures)
        other = option_name(cheapest)
        lost = f"Of all the options, {other} would have the {word} {objective_words(dec)} " \
               f"({value_words(r, dec, cheapest)}) but {failure_words(r, cheapest, dec)}."
        return tag, [first, lost] + (physics(r, p)[1] if b.variant != "api" else []) + extra
    if b.variant == "api":
        return "cost: the hosted API is cheaper than a fleet", [first] + extra
    tag, more = physics(r, p)
    return ("cost: renting as traffic needs is cheaper than holding a fleet" if b.variant == "busy_hours" else tag), \
        [first] + more + extra


def option_name(o: Option) -> str:
    """An option as a sentence names it: 'h100', 'h100 (fp8)', 'h100 rented on demand as traffic needs', 'the
    hosted API'."""
    device = f"{o.device} ({o.alternative})" if o.alternative else o.device
    if o.variant == "fleet":
        return device
    return "the hosted API" if o.variant == "api" else f"{device} rented on demand as traffic needs"


def alternative_words(r: Results, o: Option) -> str:
    """What an option's alternative changes in its workload, as given: 'Alternative fp8 of chat: precision fp8.'"""
    w = r.scenario.workloads.get(o.workload)
    if not o.alternative or w is None:
        return ""
    given = alternatives.changes(r.scenario.workloads[w.alternative_of]).get(o.alternative, {})
    parts = [f"{path} {v.text}" for path, v in given.items() if path != "title"]
    return (f"Alternative {o.alternative} of {w.alternative_of} sets {', '.join(parts)}; the rest is as "
            f"{w.alternative_of}." if parts else "")


def value_words(r: Results, dec: Decision, o: Option) -> str:
    """An option's objective value as the report shows it."""
    if o.value is None:
        return "n/a"
    measured = show(holder(r, dec, o), o.quantity)
    if not o.measured_by:
        return measured
    ratio = show(holder(r, dec, o), "measured_vs_predicted")
    return f"{measured} (measured by {o.measured_by}; predicted {human(o.predicted, dec.unit)}, measured / " \
           f"predicted throughput {ratio})"


def cost_sentence(r: Results, dec: Decision, o: Option) -> str:
    """How a service option is priced, its one definition in the engine's figures."""
    p = pair_of(r, dec, o)
    if o.variant == "api":
        return f"The hosted API is priced per token: {api_words(r, p)}."
    spare = role_value(r, p, "redundancy")
    spare = f" plus {human(spare, '')} spare replica{'' if spare == 1 else 's'}" if spare else ""
    return (f"Renting on demand as traffic needs pays the on-demand price for the devices the average traffic "
            f"keeps busy at the planned maximum utilisation{spare}{cost_driver(r, dec, o)}. This is a floor: it "
            f"averages fractional devices over the month and assumes capacity can always be had.")


def committed(r: Results, p: Pair) -> bool:
    """Whether the device's rental rate carries a commitment discount (reserved), not the on-demand price."""
    i = r.inputs.get(f"device.{p.device}.costs.reserved_discount")
    return bool(i and i.value.value)


def renting(r: Results, p: Pair) -> str:
    return "rented with the commitment discount" if committed(r, p) else "rented by the hour, all month"


def money(r: Results, p: Pair) -> list[str]:
    """The fleet's cost basis against the other one, where the engine prices both."""
    v, out = p.values, []
    if "monthly_cost_own" in v and "monthly_cost_rent" in v:
        out.append(f"Held all month this fleet costs {show(p, 'monthly_cost_own')} owned and "
                   f"{show(p, 'monthly_cost_rent')} {renting(r, p)}.")
    return out


def api_service_words(r: Results, p: Pair) -> str:
    """What is known of the API's latency: the provider's stated p95 figures checked against the targets, or not."""
    w = f"workload.{p.workload}"
    stated = [f"{input_text(r, f'{w}.api.{k}')} {what}" for k, what in
              (("ttft_p95", "to the first token"), ("per_token_p95", "per token")) if f"{w}.api.{k}" in r.inputs]
    if p.values.get("api_meets_targets") is True:
        return (f"Its latency is the provider's stated service level ({' and '.join(stated)} at the 95th "
                f"percentile), checked against the targets; its capacity at the peak is the provider's to guarantee.")
    return "Its latency and capacity are the provider's: no targets are set, so neither is checked."


def api_words(r: Results, p: Pair) -> str:
    """The API's price per request and per million output tokens, as the engine multiplies them."""
    w = f"workload.{p.workload}"
    parts = [f"{input_text(r, f'{w}.output_tokens')} output tokens × {input_text(r, f'{w}.api.output_price')}"]
    if f"{w}.api.input_price" in r.inputs and f"{w}.input_tokens" in r.inputs:
        parts.append(f"{input_text(r, f'{w}.input_tokens')} input tokens × {input_text(r, f'{w}.api.input_price')}")
    return f"{' + '.join(parts)} = {rate(p, 'api_cost_per_request')} per request, that is " \
           f"{show(p, 'api_cost_per_million_tokens')} per million output tokens with the input tokens' price counted in"


def physics(r: Results, p: Pair) -> tuple[str, list[str]]:
    """What limits the chosen option, by workload kind."""
    v = p.values
    if p.kind == "generate" and v.get("bound") in ("memory", "compute"):
        if v["bound"] == "memory":
            return "memory-bound", [
                f"Decoding is memory-bound on {p.device}: each step reads {show(p, 'step_bytes')} of weights"
                f"{' and KV cache' if 'kv_read_bytes' in v else ''} for {show(p, 'step_flops')} of work "
                f"(intensity {show(p, 'intensity')}, below the device's ridge point of "
                f"{show(p, 'delivered_ridge_point')} at the delivered rates), so memory bandwidth and price, not "
                f"peak compute, decide speed and cost."]
        return "compute-bound", [
            f"Decoding is compute-bound on {p.device} at this batch (intensity {show(p, 'intensity')} above the "
            f"ridge point of {show(p, 'delivered_ridge_point')} at the delivered rates): the delivered rate "
            f"({show(p, 'delivered_rate')}) decides."]
    if p.kind == "matmul":
        share = v.get("transfer_share")
        if isinstance(share, float) and share > 0.5:
            return "link-bound", [
                f"The host link dominates on {p.device}: moving the operands takes {show(p, 'transfer_time')} of "
                f"the {show(p, 'total_time')} elapsed ({show(p, 'transfer_share')}); the kernel itself takes "
                f"{show(p, 'kernel_time')}."]
        if v.get("bound") in ("memory", "compute"):
            return f"{v['bound']}-bound", [
                f"On {p.device} the product is {v['bound']}-bound (intensity {show(p, 'intensity')}, ridge point "
                f"{show(p, 'delivered_ridge_point')} at the delivered rates)."]
        return "elapsed time", []
    if p.kind == "forward":
        return forward_reason(r, p)
    if p.kind == "train":
        if v.get("fits") is False:
            return "does not fit", [
                f"The training state ({show(p, 'state_bytes')}) does not fit in one {p.device}: "
                f"{show(p, 'devices')} devices are used."]
        return "cost", []
    return "cost", []


def forward_reason(r: Results, p: Pair) -> tuple[str, list[str]]:
    target = input_text(r, f"workload.{p.workload}.targets.latency_p95")
    others = [o for o in pairs_of(r, p.workload) if o is not p and isinstance(o.values.get("latency"), float)]
    faster = [o for o in others if o.values["latency"] < p.values.get("latency", math.inf)]
    out = []
    meets = bool(target and p.values.get("meets_latency"))
    if faster:
        f = min(faster, key=lambda o: o.values["latency"])
        but = f"{p.device} already meets the {target} latency target, so speed beyond it buys nothing here" \
            if meets else f"{f.device} costs more"
        out.append(f"{f.device} is faster ({show(f, 'latency')} against {show(p, 'latency')}), but {but}.")
        return ("cost: the cheaper device meets the latency target" if meets else "cost"), out
    if meets:
        out.append(f"Its latency ({show(p, 'latency')}) meets the {target} target.")
    return "cost", out


def failure_tag(fails: tuple[Failure, ...]) -> str:
    """The dominant constraint that excluded the cheapest option, in two or three words."""
    if any(f.deployment or f.cloud_service for f in fails):
        return "deployment"
    if any(f.requirement == "budget" for f in fails):
        return "budget"
    if any(f.memory for f in fails):
        return "does not fit"
    if any(f.not_computed for f in fails):
        return "no rate at this precision"
    return "latency target"


def failure_words(r: Results, option: Option, dec: Decision) -> str:
    """Why an option is excluded, with the engine's figures."""
    out = []
    for f in option.failures:
        p = r.pair(f.workload, option.device)
        where = f" (workload {f.workload})" if f.workload not in (dec.workload, option.workload) else ""
        if f.cloud_service:
            service = "is a hosted service" if option.variant == "api" else "is rented in the cloud"
            out.append(f"{service}: it cannot be had {f.requirement}")
        elif f.quantity == "api_meets_targets":
            out.append(api_target_words(r, p))
        elif f.quantity == "owned_fleet" and "own_rate" not in p.values:
            out.append("is priced only as a rental: on premises it must be bought; give costs.purchase to price it "
                       "owned")
        elif f.quantity == "owned_fleet":
            out.append(f"is costed as rented in the cloud ({p.values.get('cost_basis')}, its cheapest basis): on "
                       f"premises it must be bought; set costs.basis: own to price it owned")
        elif f.deployment:
            out.append(f"cannot be had {f.requirement} (its deployment: "
                       f"{device_deployment(r, option.device)})")
        elif f.requirement == "budget":
            field_name = {"capex": "capex", "cost": "total"}.get(f.quantity, "monthly")
            limit = dec.budget.get(field_name)
            over = f" ({show(p, f.quantity)} against {money_text(limit)})" if limit is not None else ""
            name = {"monthly": "monthly budget", "capex": "capital budget", "total": "budget for the run"}[field_name]
            out.append(f"is over the {name}{over}")
        elif f.requirement == "demand_consistent":
            out.append("its demand is inconsistent: the average traffic is above the peak or the peak above what "
                       "the fleet serves")
        elif f.not_computed:
            out.append(f"its {label(f.quantity).lower()} cannot be computed: the engine warns why "
                       f"(e.g. no rate at this precision){where}")
        elif f.memory:
            held = held_against(r, p, f.quantity)
            detail = f": needs {held[2]}, has {held[3]}" if held else ""
            if isinstance(p.values.get("devices_to_fit"), float) and p.values["devices_to_fit"] > 1:
                fit = r.scenario.workloads.get(f"{option.workload}-{alternatives.FIT}")
                ranked = f"; ranked as {option.device}, {alternatives.FIT}" if fit is not None and fit.automatic \
                    and fit.has(f"devices.{option.device}") else ""
                detail += f" ({show(p, 'devices_to_fit')} devices would hold it{ranked})"   # fit: a power of two
            out.append(f"does not fit in memory{detail}{where}")
        else:
            out.append(f"misses a latency target{target_detail(r, p)}{where}")
    return "; ".join(out)


def api_target_words(r: Results, p: Pair) -> str:
    """Why the hosted API is not shown to meet the latency targets: a figure missing, or over its target."""
    w = f"workload.{p.workload}"
    missing = [k for k, t in (("ttft_p95", "ttft_p95"), ("per_token_p95", "per_token_p95"))
               if f"{w}.targets.{t}" in r.inputs and f"{w}.api.{k}" not in r.inputs]
    if missing:
        return (f"is not shown to meet the latency targets: the provider's stated {' and '.join(missing)} (its "
                f"service level) is not given; add it under api: to check it")
    over = [f"{input_text(r, f'{w}.api.{k}')} > {input_text(r, f'{w}.targets.{k}')}"
            for k in ("ttft_p95", "per_token_p95") if f"{w}.api.{k}" in r.inputs and f"{w}.targets.{k}" in r.inputs
            and r.inputs[f"{w}.api.{k}"].value.value > r.inputs[f"{w}.targets.{k}"].value.value]
    return f"misses a latency target at the provider's stated service level: {', '.join(over)}"


def money_text(v: float) -> str:
    return human(v, "USD")


def device_deployment(r: Results, did: str) -> str:
    d = r.scenario.devices[did]
    return ", ".join(v.value for p, v in sorted(d.values.items()) if p.startswith("deployment[")) or "not given"


def target_detail(r: Results, p: Pair) -> str:
    checks = (("meets_per_token", "token_interval", "targets.per_token_p95", "time between tokens"),
              ("meets_ttft", "ttft_p95" if "ttft_p95" in p.values else "ttft", "targets.ttft_p95",
               "time to first token"),
              ("meets_latency", "latency", "targets.latency_p95", "latency"))
    parts = [f"{what} {show(p, q)} > {input_text(r, f'workload.{p.workload}.{path}')}"
             for flag, q, path, what in checks if p.values.get(flag) is False]
    return f": {', '.join(parts)}" if parts else ""


def verdict(r: Results, dec: Decision, o: Option) -> str:
    if o.id == dec.recommendation:
        return "recommended"
    if o.failures:
        return failure_words(r, o, dec)
    if o.value is None:
        return f"{objective_words(dec)} not computed (an input is missing)"
    if F.definition(dec.quantity) and F.definition(dec.quantity).unit == "s":
        return f"slower{time_driver(pair_of(r, dec, o))}"
    word = "lower" if dec.maximise else "higher"
    return f"{word} {objective_words(dec)}{cost_driver(r, dec, o)}"


def time_driver(p: Pair) -> str:
    v = p.values
    if isinstance(v.get("transfer_share"), float) and v["transfer_share"] > 0.5:
        return f": {show(p, 'transfer_share')} of the time on the host link"
    if p.kind == "matmul" and "delivered_rate" in v:
        return f": compute at {show(p, 'delivered_rate')}"
    if p.kind == "generate" and "step_time" in v:
        return f": {show(p, 'step_time')} per token"
    return ""


BASIS_WORDS = {"own": "owned", "reserved": "rented with the commitment discount",
               "rent": "rented by the hour, all month"}
HOURS_PER_MONTH = MONTH.value / 3600     # the formulas' month, in hours


def basis_words(r: Results, p: Pair) -> str:
    """How a device is costed: the basis, the hourly rate used, and the other basis where both are priced."""
    v = p.values
    basis = v["cost_basis"]
    other = ""
    if "own_rate" in v and "rent_rate" in v:
        rent = "renting with the commitment discount" if committed(r, p) else "renting by the hour"
        other = (f", cheaper than {rent} at {rate(p, 'rent_rate')}" if basis == "own" else
                 f", cheaper than owning at {rate(p, 'own_rate')}")
    return f"costed as {BASIS_WORDS.get(basis, basis)} at {rate(p, 'hourly_rate')} per device{other}"


def cost_driver(r: Results, dec: Decision, o: Option) -> str:
    """The sum that gives an option's cost, in its own figures (each shown to 4 digits, so it multiplies out)."""
    p = pair_of(r, dec, o)
    v = p.values
    monthly = o.quantity in ("monthly_cost", "busy_hours_monthly_cost", "api_monthly_cost")
    if o.variant == "api":
        if monthly:
            month = v["average_rate"] * HOURS_PER_MONTH * 3600
            return f": {show(p, 'average_rate')} × 3,600 s/h × {HOURS_PER_MONTH:g} h = {human(month, '')} requests × " \
                   f"{rate(p, 'api_cost_per_request')} per request"
        return f": {api_words(r, p)}"
    if o.variant == "busy_hours":
        if monthly:
            n = v["busy_hours_devices"]
            return f": {human(n, '', digits=6)} device{'' if n == 1 else 's'} rented on average × " \
                   f"{human(r.inputs[f'device.{o.device}.price'].value.value, 'USD/s', digits=5, cents=False)} (on demand) × " \
                   f"{HOURS_PER_MONTH:g} h"
        return f": {show(p, 'busy_hours_monthly_cost')} / {show(p, 'tokens_per_month')} served"
    if monthly and "hourly_rate" in v and "fleet_devices" in v:
        return (f": {human(v['fleet_devices'], '')} devices × {rate(p, 'hourly_rate')} "
                f"({BASIS_WORDS.get(v.get('cost_basis'))}) × {HOURS_PER_MONTH:g} h")
    if o.quantity == "cost" and "device_hours" in v and "hourly_rate" in v:        # a training run
        basis = "rented by the hour" if v.get("cost_basis") == "rent" else BASIS_WORDS.get(v.get("cost_basis"))
        return f": {human(v['devices'], '')} devices × {rate(p, 'hourly_rate')} ({basis}) × " \
               f"{human(v['duration'] / 3600, '', digits=6)} h"
    if o.quantity == "cost_per_million_tokens" and "tokens_per_month" in v:
        return f": {show(p, 'monthly_cost')} / {show(p, 'tokens_per_month')} served"
    if o.quantity == "cost_per_million_tokens" and "hourly_rate" in v:
        return f": {show(p, 'tokens_per_s')} per replica at {rate(p, 'hourly_rate')} per device"
    return ""


def findings(r: Results) -> tuple[str, ...]:
    """One line per workload: what limits it on each device (engine values only)."""
    out = []
    decided = {d.workload for d in r.decisions}
    decided |= {w.id for w in r.scenario.workloads.values() if w.alternative_of in decided}
    for wid in workload_ids(r):
        if wid in decided:
            continue
        pairs = pairs_of(r, wid)
        line = finding(r, pairs)
        if line:
            out.append(f"{workload_title(r, wid)}: {line}")
    out += [line for s in r.sweeps if s.parameter == "precision" and (line := precision_finding(s))]
    return tuple(out)


def finding(r: Results, pairs: list[Pair]) -> str:
    kind = pairs[0].kind
    if kind == "generate":
        parts = [f"{p.device} {show(p, 'step_time')} per token, {show(p, 'tokens_per_s')}"
                 + (f", {p.values['bound']}-bound" if "bound" in p.values else "")
                 + ("" if p.values.get("fits", True) else ", does not fit") for p in pairs]
        return "; ".join(parts) + "."
    if kind == "matmul":
        return "; ".join(f"{p.device} {show(p, 'total_time')}"
                         + (f" ({show(p, 'transfer_share')} on the host link)" if "transfer_share" in p.values
                            else f" ({p.values['bound']}-bound)" if "bound" in p.values else "")
                         for p in pairs) + "."
    if kind == "forward":
        return "; ".join(f"{p.device} {show(p, 'latency')} per request"
                         + ("" if "meets_latency" not in p.values else
                            " (meets the target)" if p.values["meets_latency"] else " (misses the target)")
                         for p in pairs) + "."
    if kind == "train":
        return "; ".join(f"{p.device}: state {show(p, 'state_bytes')}, " + train_fit(p)
                         + (f", {show(p, 'duration')}" if p.values.get("fits") is not False else "")
                         + (f", {show(p, 'cost')}" if p.values.get("cost") is not None else "")
                         for p in pairs) + "."
    if kind == "benchmark":
        return "; ".join(f"{show(p, 'cost_per_million_tokens')} measured, "
                         f"{show(p, 'cost_per_million_tokens_at_utilisation')} at the stated utilisation"
                         + ("" if p.values.get("within_peak", True) else
                            f"; it is {show(p, 'measured_vs_predicted')} of the prediction, faster than the device's "
                            f"declared peaks allow (calibrated efficiency {show(p, 'calibrated_efficiency')}): "
                            f"check the record's configuration or the device's figures")
                         for p in pairs) + "."
    return ""


def train_fit(p: Pair) -> str:
    """Where the training state goes, in the engine's figures."""
    v = p.values
    used = f"{show(p, 'devices')} device{'s' if v.get('devices') != 1 else ''}"
    if v.get("fits_one_device"):
        return f"fits on one device ({used} used)"
    if v.get("fits"):
        return f"fits sharded over the {used} used"
    if "devices_that_fit" not in v:
        return f"does not fit on the {used} used"
    priced = f", in {show(p, 'duration_that_fits')}" if "duration_that_fits" in v else ""
    priced += f" at a cost of {show(p, 'cost_that_fits')}" if "cost_that_fits" in v else ""
    return f"does not fit on the {used} used: {show(p, 'devices_that_fit')} would hold it sharded{priced}"


def precision_finding(s) -> str:
    """Weights at each precision of a precision sweep (the same on every device)."""
    series = next(iter(s.series.values()), {})
    q = next((q for q in ("weights_bytes", "footprint_bytes") if q in series), None)
    if q is None:
        return ""
    d = F.definition(q)
    parts = [f"{prec} {human(v, d.unit, d.display)}" for prec, v in zip(s.values, plain(series[q])) if v is not None]
    return f"{s.workload}: weights at each precision swept: {', '.join(parts)}."


def plain(values) -> list:
    """Sweep series as Python scalars (the engine may hand numpy arrays)."""
    return [scalar(v) for v in values]


def breakeven_words(p: Pair, renting: str) -> str:
    """Buy against rent on demand, in the engine's figure; above 100 % owning never wins."""
    if p.values["breakeven_utilisation"] >= 1:
        return (f"{renting} costs less than owning even at full use: owning costs "
                f"{show(p, 'breakeven_utilisation')} of the hourly price")
    return f"{renting} costs less than owning below {show(p, 'breakeven_utilisation')} average utilisation " \
           f"(paying only the busy device-hours; the ranked on-demand option also keeps the utilisation ceiling and " \
           f"the spare replicas)"


def breakeven(r: Results) -> tuple[str, ...]:
    """Break-even points the engine computes: compute-bound batch, and sweep crossovers."""
    out = []
    for p in r.pairs:
        if isinstance(p.values.get("breakeven_utilisation"), float):
            key = f"device.{p.device}.price"
            price = human(r.inputs[key].value.value, "USD/s") if key in r.inputs else "the hourly price"
            out.append(breakeven_words(p, f"{p.workload} on {p.device}: renting on demand at {price}") + ".")
        if "compute_bound_batch" in p.values:
            b = p.values["compute_bound_batch"]
            now = show(p, "step_tokens").replace(" tokens", "")
            at = "never (the KV cache reads grow faster than the work)" if b is None else \
                f"at batch {human(b, '')}"
            out.append(f"{p.workload} on {p.device}: decode turns compute-bound {at}; the batch is {now}.")
    for s in r.sweeps:
        out += [crossover_words(c, (min(s.values), max(s.values))) for c in s.crossovers]
    out += [crossover_words(c) for c in r.crossovers]
    return tuple(out)


def crossover_words(c: Crossover, swept: tuple[float, float] | None = None) -> str:
    """A crossover in one sentence; `swept` is the swept range (none: found by the engine's own search)."""
    where = f"{c.parameter} {number(c.at)}" if swept else f"a square size (m = n = k) of {number(c.at)}"
    rng = f" (swept {number(swept[0])} to {number(swept[1])})" if swept else ""
    if c.kind == "faster":
        return f"{c.workload}: {c.faster} is faster than {c.slower} from {where}{rng}."
    return f"{c.workload} on {c.device}: the first swept {c.parameter} where decode is compute-bound is {number(c.at)}."
