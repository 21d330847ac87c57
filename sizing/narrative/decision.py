"""Why an option wins or loses: the reason behind a recommendation, each option's verdict."""

from __future__ import annotations

import math

from .. import alternatives
from .. import formulas as F
from ..binding import deployments
from ..decide import holder, pair_of
from ..evaluate import Pair, Results
from ..render.format import human
from ..results import Decision, Failure, Option
from ..schema import REQUIREMENTS

from .common import REQUIRE_WORDS, held_against, input_text, label, objective_words, pairs_of, role_value, show
from .memo import option_words, short_name
from .money import (api_service_words, api_target_words, api_unstated, basis_words, cost_driver, cost_sentence, money,
                    money_text)


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
    if any(p.kind == "train" for p in r.pairs if p.workload == dec.workload):      # a training run's target
        req = ["meet the deadline" if x == REQUIRE_WORDS.get("meets_targets") else x for x in req]
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
    name = option_words(r, b)
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
        tag = option_tag(r, dec, cheapest)
        other = option_words(r, cheapest)
        lost = f"Of all the options, {other} would have the {word} {objective_words(dec)} " \
               f"({value_words(r, dec, cheapest)}) but {failure_words(r, cheapest, dec)}."
        return tag, [first, lost] + (physics(r, p)[1] if b.variant != "api" else []) + extra
    if b.variant == "api":
        return "cost: the hosted API is cheaper than a fleet", [first] + extra
    tag, more = physics(r, p)
    return ("cost: renting as traffic needs is cheaper than holding a fleet" if b.variant == "busy_hours" else tag), \
        [first] + more + extra


def alternative_words(r: Results, o: Option) -> str:
    """What an option's alternative changes in its workload, as given: 'Alternative fp8 of chat: precision fp8.'"""
    w = r.scenario.workloads.get(o.workload)
    if not o.alternative or w is None:
        return ""
    given = alternatives.given_by(r.scenario.workloads, w)
    parts = [f"{path} {v.text}" for path, v in given.items() if path != "title"]
    base = r.scenario.workloads.get(w.alternative_of)
    if w.found and base is not None:
        return (f"{w.get('title')}: batch {w.get('batch')} instead of the {base.get('batch')} the scenario states; "
                "everything else is the same.")
    name = w.get("title") or f"Option {o.alternative}"
    if w.automatic:              # not input-file words ('changes ...: devices.mi300x 32': a procurement reviewer)
        counts = ", ".join(f"{v.text} {short_name(r, path.removeprefix('devices.'))}" for path, v in given.items()
                           if path.startswith("devices.") and path.removeprefix("devices.") in r.scenario.devices)
        how = "every device of its whole servers" if alternatives.whole_servers(w) else "the fewest devices that hold it"
        return f"{name}: the same on {how} ({counts}); everything else is the same." if counts else ""
    of = (base.get("title") if base is not None else None) or f"workload {w.alternative_of}"
    return f"{name} changes {of[0].lower() + of[1:] if of.split()[0][1:].islower() else of}: " \
           f"{', '.join(parts)}; everything else is the same." if parts else ""


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


def physics(r: Results, p: Pair) -> tuple[str, list[str]]:
    """What limits the chosen option, by workload kind."""
    name = short_name(r, p.device)          # as the tables name it, not its id
    v = p.values
    if p.kind == "generate" and v.get("bound") in ("memory", "compute"):
        if v["bound"] == "memory":
            return "memory-bound", [
                f"Decoding is memory-bound on {name}: each step reads {show(p, 'step_bytes')} of weights"
                f"{' and KV cache' if 'kv_read_bytes' in v else ''} for {show(p, 'step_flops')} of work "
                f"(intensity {show(p, 'intensity')}, below the device's ridge point of "
                f"{show(p, 'delivered_ridge_point')} at the delivered rates), so memory bandwidth and price, not "
                f"peak compute, decide speed and cost."]
        return "compute-bound", [
            f"Decoding is compute-bound on {name} at this batch (intensity {show(p, 'intensity')} above the "
            f"ridge point of {show(p, 'delivered_ridge_point')} at the delivered rates): the delivered rate "
            f"({show(p, 'delivered_rate')}) decides."]
    if p.kind == "matmul":
        share = v.get("transfer_share")
        if isinstance(share, float) and share > 0.5:
            return "link-bound", [
                f"The host link dominates on {name}: moving the operands takes {show(p, 'transfer_time')} of "
                f"the {show(p, 'total_time')} elapsed ({show(p, 'transfer_share')}); the kernel itself takes "
                f"{show(p, 'kernel_time')}."]
        if v.get("bound") in ("memory", "compute"):
            return f"{v['bound']}-bound", [
                f"On {name} the product is {v['bound']}-bound (intensity {show(p, 'intensity')}, ridge point "
                f"{show(p, 'delivered_ridge_point')} at the delivered rates)."]
        return "elapsed time", []
    if p.kind == "forward":
        return forward_reason(r, p)
    if p.kind == "train":
        if v.get("fits") is False and v.get("devices_to_fit") == 0:
            return "does not fit", [
                f"One sequence's activations ({show(p, 'activation_per_sequence')}) outgrow one {name}'s usable "
                f"memory ({show(p, 'usable_memory')}), however the state is spread: set recompute: true, or split the "
                "model over devices with parallel.tensor."]
        if v.get("fits") is False:
            return "does not fit", [
                f"The training state ({show(p, 'state_bytes')}) does not fit in one {name}: "
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
        name, other = short_name(r, p.device), short_name(r, f.device)
        but = f"{name} already meets the {target} latency target, so speed beyond it buys nothing here" \
            if meets else f"{other} costs more"
        out.append(f"{other} is faster ({show(f, 'latency')} against {show(p, 'latency')}), but {but}.")
        return ("cost: the cheaper device meets the latency target" if meets else "cost"), out
    if meets:
        out.append(f"Its latency ({show(p, 'latency')}) meets the {target} target.")
    return "cost", out


def option_tag(r: Results, dec: Decision, o: Option) -> str:
    """failure_tag, told apart for a training run (its target is a deadline) and for a hosted API whose missed
    targets are response times its provider does not state (not shown to be slow: not shown at all)."""
    tag = failure_tag(o.failures)
    p = pair_of(r, dec, o) if o.variant != "api" else None
    if tag == "latency target" and p is not None and p.kind == "train":
        return "deadline"                        # a training run's target is its deadline
    if tag == "latency target" and o.variant == "api" and all(f.quantity == "api_meets_targets" for f in o.failures
                                                              if f.requirement != "budget") \
            and api_unstated(r, pair_of(r, dec, o)):
        return "latency not stated"
    return tag


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
            out.append(f"is costed as rented in the cloud ({p.values.get('cost_basis')}, as its costs.basis forces): "
                       f"on premises it must be bought; set costs.basis: own, or leave it out, to price it owned")
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
                fit = alternatives.fit_for(r.scenario.workloads, option.workload, option.device)
                ranked = f"; ranked as {option.device}, {fit.alternative}" if fit is not None else ""
                detail += f" ({show(p, 'devices_to_fit')} devices would hold it{ranked})"   # fit: a power of two
            elif p.kind == "train" and p.values.get("devices_to_fit") == 0 and "activation_per_sequence" in p.values:
                # no count holds it: more devices do not help (a new user read 'needs 704.6 GB, has 432 GB')
                detail = (f": one sequence's activations ({show(p, 'activation_per_sequence')}) outgrow a device "
                          f"({show(p, 'usable_memory')} usable), whatever the count: set recompute: true, or more "
                          "tensor-parallel ways")
            out.append(f"does not fit in memory{detail}{where}")
        elif p.kind == "train":
            out.append(f"misses the deadline{where}")
        else:
            out.append(f"misses a latency target{target_detail(r, p)}{where}")
    return "; ".join(out)


def device_deployment(r: Results, did: str) -> str:
    return ", ".join(deployments(r.scenario.devices[did])) or "not given"


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
    best = dec.best
    if best is not None and best.value is not None and o.value == best.value:
        return f"the same {objective_words(dec)}: ranked after it in the order the options are listed"
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


