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


def median_costs(r: Results, dec: Decision) -> tuple[dict, dict] | None:
    """For the recommendation and the runner-up, priced in money: the median measured / predicted speed of each
    device's published runs (MEDIAN_RUNS or more) and the cost at that speed, a cost taken to scale with the
    devices a speed needs (an option without enough runs, or the hosted API, stays as predicted); None when
    neither has enough runs."""
    best, second = dec.best, runner_up(dec)
    if dec.maximise or "USD" not in dec.unit or None in (best, second) or None in (best.value, second.value):
        return None
    speeds = {o.id: statistics.median(runs) for o in (best, second) if len(runs := own_runs(r, dec, o)) >= MEDIAN_RUNS}
    if not speeds:
        return None
    return speeds, {o.id: o.value / speeds.get(o.id, 1.0) for o in (best, second)}


def adjusted_lead(r: Results, dec: Decision) -> float | None:
    """The runner-up's cost over the recommendation's with each at its device's median published speed."""
    return lead_at(dec, median_costs(r, dec))


def lead_at(dec: Decision, got: tuple[dict, dict] | None) -> float | None:
    """The runner-up's cost over the recommendation's, from median_costs' answer (None: none)."""
    return None if got is None else got[1][runner_up(dec).id] / got[1][dec.best.id]


def at_medians(r: Results, dec: Decision, got: tuple[dict, dict] | None) -> str:
    """' If each runs at the median speed of its device's published runs (Instinct MI300X 0.77x, H200 SXM 141GB
    1.02x the predicted speed), they cost about $6,271/month and $6,475/month: the lead shrinks to 1.03x.', from
    median_costs' answer (None: nothing to say)."""
    from .common import device_name

    if got is None:
        return ""
    speeds, cost = got
    best, second = dec.best, runner_up(dec)
    said = []
    for o in (best, second):
        if o.id in speeds:
            said.append(f"{device_name(r, o.device)} at {speeds[o.id]:.3f}x" + ("" if said else " the predicted speed"))
        else:
            said.append("the hosted API at its price" if o.variant == "api" else
                        f"{device_name(r, o.device)} as predicted (too few runs)")
    lead = lead_at(dec, got)
    verdict = (f"the runner-up would be cheaper, by {1 / lead:.2f}x" if lead < 1 else
               f"the lead {'shrinks' if lead < margin(dec) else 'grows'} to {lead:.2f}x")
    return (f" At the median speeds of the devices' published runs ({'; '.join(said)}) they would cost about "
            f"{human(cost[best.id], dec.unit)} and {human(cost[second.id], dec.unit)}: {verdict}.")


def kind_of(p) -> str:
    return p.kind if p is not None else ""
