"""The recommendation's lead over the runner-up, and whether it is a close call: as predicted, and with each device
at the median speed of its published runs (the accuracy records)."""

from __future__ import annotations

import math
import statistics

from ..catalog import device_runs
from ..decide import pair_of
from ..evaluate import Results
from ..render.format import human
from .common import catalog_id
from ..results import Decision, Option

# The published runs that speak for a workload kind's prediction (accuracy categories).
KIND_RUNS = {"generate": ("decode_batch1", "throughput_large_batch", "ttft"), "train": ("training",),
             "forward": ("encoder_latency", "encoder_throughput")}
CLOSE_CALL = 0.30          # a lead under a factor of 1 + this is within the defaults' accuracy (README, Accuracy)


def runner_up(dec: Decision) -> Option | None:
    """The best ranked option after the recommendation."""
    return next((o for o in dec.options if o.rank == 2), None)


def best_elsewhere(dec: Decision) -> Option | None:
    """The best ranked option on another device than the recommendation's, or the hosted API."""
    best = dec.best
    return min((o for o in dec.options if o.rank and o.value is not None
                and (o.device != best.device or o.variant == "api")), key=lambda o: o.rank, default=None)


def margin(dec: Decision) -> float | None:
    """The recommendation's lead as a factor: the runner-up's value over the recommendation's (the other way round
    where more is better); None without both, inf when the lesser is not positive."""
    best, second = dec.best, runner_up(dec)
    if best is None or second is None or best.value is None or second.value is None:
        return None
    more, less = (best.value, second.value) if dec.maximise else (second.value, best.value)
    return more / less if less > 0 else math.inf


def close_call(dec: Decision, r: Results | None = None) -> bool:
    """A lead under a factor of 1 + CLOSE_CALL: a speed estimate off by that factor could reverse it, and about a
    quarter of the published runs are; with the results, also a lead under it once each option runs at its
    device's median published speed."""
    best, second = dec.best, runner_up(dec)
    if best is not None and second is not None and second.device == best.device \
            and "api" not in (best.variant, second.variant) and best.value:
        # one device's speed error moves both alike (page one says so): the lead that can turn is over the best
        # option on another device (a signer read 'does not rest on it' beside 'a close call')
        other = best_elsewhere(dec)
        if other is None:
            return False
        lead = best.value / other.value if dec.maximise else other.value / best.value
        return is_close(lead, None)
    lead = margin(dec)
    return lead is not None and is_close(lead, adjusted_lead(r, dec) if r is not None else None)


def is_close(lead: float, shifted: float | None) -> bool:
    """The lead, or the lead at the devices' median published speeds where there is one, under 1 + CLOSE_CALL."""
    return min(lead, shifted if shifted is not None else lead) < 1 + CLOSE_CALL


MEDIAN_RUNS = 3           # published runs of a device before their median speaks for it


def own_runs(r: Results, dec: Decision, o: Option) -> list[float]:
    """The measured / predicted speeds of the published runs of an option's device, for its kind of work."""
    d = r.scenario.devices.get(o.device)
    if d is None or o.variant == "api":
        return []
    return device_runs(KIND_RUNS.get(kind_of(pair_of(r, dec, o)), ())).get(catalog_id(d), [])


def few_runs(runs: list[float]) -> str:
    """Why a device is taken as predicted: 'no published run', '1 published run, at 0.93x: too few for a median'
    (the run's speed said: a procurement reviewer read 'as predicted' here and the run's 0.93x in the trust table)."""
    if not runs:
        return "no published run"
    at = f"at {runs[0]:.2f}x" if len(runs) == 1 else f"at {min(runs):.2f}x to {max(runs):.2f}x"
    return f"{len(runs)} published run{'' if len(runs) == 1 else 's'}, {at}: too few for a median"


def median_costs(r: Results, dec: Decision, other: Option | None = None) -> tuple[dict, dict] | None:
    """For the recommendation and the runner-up, priced in money: the median measured / predicted speed of each
    device's published runs (MEDIAN_RUNS or more) and each option's cost with its device at that speed (the engine
    re-run with the device's rates scaled by it and its fixed latencies by its inverse, so every time scales and
    the replicas, spares and minimums follow as the fleet's own formulas have them; an option without enough runs,
    measured by a record, or the hosted API stays as it is; None where it would no longer qualify); None when
    neither has enough runs. `other`: that option in place of the runner-up (the best on another device)."""
    best, second = dec.best, other or runner_up(dec)
    if dec.maximise or "USD" not in dec.unit or None in (best, second) or None in (best.value, second.value):
        return None
    speeds = {o.id: statistics.median(runs) for o in (best, second)
              if not o.measured_by and len(runs := own_runs(r, dec, o)) >= MEDIAN_RUNS}
    if not speeds:
        return None
    from ..evaluate import decide_with

    again = decide_with(r, at_speeds(r, {o.device: speeds[o.id] for o in (best, second) if o.id in speeds}),
                        r.decisions.index(dec))                  # the engine's own decision at those speeds
    cost = {}
    for o in (best, second):
        there = again.option(o.id) if again is not None else None
        cost[o.id] = o.value if o.id not in speeds else \
            there.value if there is not None and there.passes and there.value is not None else None
    return speeds, cost


# A device's figures a speed scales: its rates up by it, its fixed latencies down (every time then scales by it).
FASTER = ("compute_rate", "memory_bandwidth", "link_bandwidth", "interconnect_bandwidth", "network_bandwidth")
SOONER = ("layer_overhead", "interconnect_latency", "network_latency")


def at_speeds(r: Results, speeds: dict[str, float]) -> dict:
    """The engine's figures with each device in `speeds` running at that multiple of its predicted speed."""
    from ..evaluate import what_if

    overrides = {}
    for k, i in r.inputs.items():
        f = speeds.get(i.entity.id) if i.entity.kind == "device" else None
        if f and isinstance(i.value.value, float):
            if i.role in FASTER:
                overrides[k] = i.value.value * f
            elif i.role in SOONER:
                overrides[k] = i.value.value / f
    return what_if(r, overrides)


def adjusted_lead(r: Results, dec: Decision) -> float | None:
    """The runner-up's cost over the recommendation's with each at its device's median published speed."""
    return lead_at(dec, median_costs(r, dec))


def lead_at(dec: Decision, got: tuple[dict, dict] | None, other: Option | None = None) -> float | None:
    """The runner-up's cost over the recommendation's, from median_costs' answer (None: none; 0 where only the
    recommendation stops qualifying, inf where only the runner-up does)."""
    if got is None:
        return None
    mine, theirs = got[1][dec.best.id], got[1][(other or runner_up(dec)).id]
    if mine is None or theirs is None:
        return None if mine is None and theirs is None else 0.0 if mine is None else math.inf
    return theirs / mine


def at_medians(r: Results, dec: Decision, got: tuple[dict, dict] | None, other: Option | None = None) -> str:
    """' If each runs at the median speed of its device's published runs (Instinct MI300X 0.77x, H200 SXM 141GB
    1.02x the predicted speed), they cost about $6,271/month and $6,475/month: the lead shrinks to 1.03x.', from
    median_costs' answer (None: nothing to say); `other` in place of the runner-up, called 'that option'."""
    from .common import device_name

    if got is None:
        return ""
    speeds, cost = got
    best, second = dec.best, other or runner_up(dec)
    them = "that option" if other is not None else "the runner-up"
    said = []
    for o in (best, second):
        if o is second and o.device == best.device and o.id in speeds and best.id in speeds:
            said = [f"both on {device_name(r, o.device)}, at {speeds[o.id]:.3f}x the predicted speed"]
        elif o.id in speeds:
            said.append(f"{device_name(r, o.device)} at {speeds[o.id]:.3f}x" + ("" if said else " the predicted speed"))
        else:
            said.append("the hosted API at its price" if o.variant == "api" else
                        f"{device_name(r, o.device)} as measured" if o.measured_by else
                        f"{device_name(r, o.device)} as predicted ({few_runs(own_runs(r, dec, o))})")
    lead = lead_at(dec, got, other)
    if lead is None:
        return (f" At the median speeds of the devices' published runs ({'; '.join(said)}) neither would meet "
                "every requirement.")
    names = ("the recommendation", them)
    costs = " and ".join(f"{who} would not meet every requirement" if cost[o.id] is None else
                         f"{who} would cost {human(cost[o.id], dec.unit)}" for who, o in zip(names, (best, second)))
    if all(cost[o.id] is not None for o in (best, second)):
        costs = "they would cost " + " and ".join(human(cost[o.id], dec.unit) for o in (best, second))
    before = second.value / best.value if other is not None else margin(dec)
    verdict = (f"{them} would be the one that qualifies" if lead == 0 else
               "the recommendation would be the only one that qualifies" if math.isinf(lead) else
               f"{them} would be cheaper, by {1 / lead:.2f}x" if lead < 1 else
               f"the lead stays {lead:.2f}x" if f"{lead:.2f}" == f"{before:.2f}" else
               f"the lead {'shrinks' if lead < before else 'grows'} to {lead:.2f}x")
    train = kind_of(pair_of(r, dec, best)) == "train"
    wid = best.workload or dec.workload
    sized = f"workload.{wid}.deadline" in r.inputs and f"workload.{wid}.devices" not in r.inputs
    needs = ("the devices that speed needs to finish by the deadline and the time it takes" if train and sized else
             "the time that speed takes" if train else "the replicas that speed needs")
    return (f" At the median speeds of the devices' published runs ({'; '.join(said)}), with {needs}, {costs}: "
            f"{verdict}.")


def kind_of(p) -> str:
    return p.kind if p is not None else ""
