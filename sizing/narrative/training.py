"""A training run's page-one figures: its devices counted in whole servers with the deadline they leave, and the
share of each device's memory it fills in the layout it runs."""

from __future__ import annotations

import statistics

from ..decide import pair_of
from ..evaluate import Results
from ..render.format import human, percent
from ..results import Decision, Option
from .common import share
from .margin import own_runs
from .money import money_text, plural as count


def servers(r: Results, dec: Decision, o: Option, v: dict) -> str:
    """A training run's devices in servers where they do not fill whole ones: '30 devices: 3.75 servers of 8 (its
    scale-up domain), 4 where sold by the server' (the workbook's domains_used and whole_domains), and the run on
    all their devices: its time, the deadline it leaves and that time at the device's published speed, its cost."""
    n, used, whole = v.get("devices"), v.get("domains_used"), v.get("whole_domains")
    if not all(isinstance(x, float) for x in (n, used, whole)) or used <= 1 or used == whole:
        return ""
    line = (f"{count(n, 'device')}: {human(used, '')} servers of {human(n / used, '')} (its scale-up domain), "
            f"{human(whole, '')} where sold by the server")
    took, cost, m = v.get("duration_whole_domains"), v.get("cost_whole_domains"), v.get("whole_domain_devices")
    if isinstance(took, float) and isinstance(cost, float) and isinstance(m, float):
        left, slow = deadline_left(r, dec, o, took)
        working = v.get("whole_domain_working")
        idle = f" ({human(working, '')} working: whole replicas of {human(n / v.get('data_parallel'), '')})" \
            if isinstance(working, float) and working < m and isinstance(v.get("data_parallel"), float) else ""
        line += (f"; on all {human(m, '')}{idle} the run takes {human(took, 's', 'days')}{left} and costs "
                 f"{money_text(cost)}" + (f"; at its {slow[0]}, {human(took / slow[1], 's', 'days')} and "
                                          f"{money_text(cost / slow[1])}" if slow else ""))
    return line


def deadline_left(r: Results, dec: Decision, o: Option, took: float) -> tuple[str, tuple[str, float] | None]:
    """' (10.5 % of the deadline to spare)' where a deadline is given ('past the deadline'), and where the device has
    published runs and the time leaves the deadline, what its speed is called and the speed ("published run's speed,
    0.93x", 0.93): the time and the cost (the devices rented or written off by the hour) over it are the run's at that
    speed (a procurement reviewer found no price for the run at the speed the report warns of)."""
    key = f"workload.{o.workload or dec.workload}.deadline"
    if key not in r.inputs:
        return "", None
    if took > r.inputs[key].value.value:
        return " (past the deadline)", None
    runs = own_runs(r, dec, o)
    seen = statistics.median(runs) if runs else None
    whose = "published run's" if len(runs) == 1 else "published runs' median"
    return f" ({spare(took, r.inputs[key].value.value)})", ((f"{whose} speed, {seen:.2f}x", seen) if seen else None)


def spare(took: float, deadline: float) -> str:
    """'10.5 % of the deadline to spare': what a training time of `took` leaves of the deadline."""
    return f"{percent(1 - took / deadline, 3)} of the deadline to spare"


def filled(v: dict) -> float | None:
    """The share of one device's usable memory a training run fills, where it fits, in the layout it runs: weights
    kept whole (their per-device memory), some layers recomputed to make room for them (full by construction), or
    everything sharded (the state and activations of all the devices over their memory). A new user found '81 %'
    where each device of a whole-weights layout was full."""
    if v.get("fits") is not True:
        return None
    if v.get("weights_whole") is True:
        full = share(v.get("memory_weights_whole"), v.get("usable_memory"))
    elif v.get("weights_sharded") is False and v.get("recompute_share") is not None:
        full = 1.0
    else:
        full = share(v.get("train_memory_required"), v.get("train_memory"))
    return full if full is not None and full <= 1 else None


def slow_words(r: Results, dec: Decision) -> str:
    """Where the recommendation's published runs ran slower than its deadline leaves room for, why page one's
    robustness covers the ranking and not the deadline: ' Its deadline is not: at its published run's speed (0.93x)
    its 30 devices take 31.13 days, past its deadline of 30 days.' (a procurement reviewer read 'Robust choice' beside
    a deadline the published run would miss). '' otherwise."""
    o = dec.best
    p = pair_of(r, dec, o) if o is not None else None
    if p is None or p.kind != "train":
        return ""
    v, runs = p.values, own_runs(r, dec, o)
    took, deadline, n = v.get("duration"), r.inputs.get(f"workload.{p.workload}.deadline"), v.get("devices")
    if not runs or not isinstance(took, float) or deadline is None or not isinstance(n, float):
        return ""
    seen = statistics.median(runs)
    if took / seen <= deadline.value.value:
        return ""
    whose = "published run's speed" if len(runs) == 1 else "published runs' median speed"
    return (f" Its deadline is not: at its {whose} ({seen:.2f}x) its {count(n, 'device')} take "
            f"{human(took / seen, 's', 'days')}, past its deadline of {human(deadline.value.value, 's', 'days')}.")
