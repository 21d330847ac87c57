"""The located warnings of an evaluation's pairs: quantities left out for want of an input, devices working across
scale-up domains with no network figure, owned devices without an electricity price, and (without a decision) a
workload that does not fit."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from . import formulas as F
from . import kinds as K
from .binding import Input, arithmetic
from .errors import Problem
from .formulas.common import NO_RATE
from .schema import Entity, Scenario

if TYPE_CHECKING:                        # evaluate imports this module
    from .evaluate import Pair


def warnings(scn: Scenario, pairs: list[Pair], blanks: dict[str, Input]) -> list[Problem]:
    """A warning for each quantity left out for want of an input, once per entity and message: absent from the
    formulas (Missing), or without a value because the device's cost cells it needs are all blank."""
    seen, out = set(), []
    for p in pairs:
        if not K.get(p.kind).workload:
            continue
        w, d = scn.workloads[p.workload], scn.devices[p.device]
        blank = {i.role for i in blanks.values() if i.entity is d and math.isnan(i.value.value)}
        for x in p.planned:
            if not x.d.warn:
                continue
            # warn only when the listed inputs are the whole reason the quantity is absent
            if isinstance(x.expr, F.Missing):
                names = x.expr.names
            elif p.values.get(x.d.id) is None and set(x.d.warn_on) <= blank:
                names = frozenset(x.d.warn_on)
            else:
                continue
            if not (names and names <= set(x.d.warn_on)):
                continue
            device_roles = {r for r in names if r in F.INPUTS and F.INPUTS[r].path("device")}
            ent = d if device_roles else scn.models.get(w.get("model"), w)
            if (ent.id, x.d.warn) in seen:
                continue
            seen.add((ent.id, x.d.warn))
            msg = f"{no_rate(w, d) if x.d.warn == NO_RATE else x.d.warn} (workload {w.id} on {d.id})"
            out.append(Problem(scn.file, ent.line, ent.col, f"{ent.kind}s.{ent.id}", msg, "warning",
                               code="missing-input"))
        if (spanned := beyond_domain(w, d, p)) and (d.id, "beyond-domain") not in seen:
            seen.add((d.id, "beyond-domain"))
            out.append(Problem(scn.file, d.line, d.col, f"devices.{d.id}", spanned, "warning", code="beyond-domain"))
        if p.values.get("owned_fleet") is True and f"device.{d.id}.costs.electricity" in blanks \
                and (d.id, UNPOWERED) not in seen:
            seen.add((d.id, UNPOWERED))
            out.append(Problem(scn.file, d.line, d.col, f"devices.{d.id}", f"{UNPOWERED} (workload {w.id})",
                               "warning", code="missing-input"))
    return sorted(out)


def unfitting(scn: Scenario, pairs: list[Pair]) -> list[Problem]:
    """Without a decision to rank them, a workload that does not fit a device is a warning: its speeds and costs are
    printed for a replica that cannot run (an engineer checking published runs read them, 'fits: no' one row among
    sixty)."""
    out = []
    for p in pairs:
        w = scn.workloads.get(p.workload)          # a benchmark record's pair is none of the scenario's workloads
        if w is None or p.values.get("fits") is not False or w.alternative_of:
            continue
        need = p.values.get("devices_to_fit")
        counted = isinstance(need, (int, float)) and math.isfinite(need) and need > 0 and p.kind != "train"
        hint = f"; {need:,.0f} devices or more hold it (`devices` on the workload)" if counted else ""
        what = "its duration and cost are for a run that cannot take place" if p.kind == "train" else \
            "its speeds and costs are for a replica that cannot run"
        out.append(Problem(scn.file, w.line, w.col, f"workloads.{w.id}", f"does not fit device {p.device} in memory: "
                           f"{what}{hint}", "warning", code="does-not-fit"))
    return out


def beyond_domain(w: Entity, d: Entity, p: Pair) -> str | None:
    """What to say when the devices of one replica, or of a training run, span more than the device's scale-up domain
    and it has no network figure to count the collectives between domains at."""
    n = p.values.get("devices") if p.kind == "train" else w.get("devices")
    domain = d.get("interconnect.domain")
    if not isinstance(n, (int, float)) or not domain or n <= domain or d.has("network.bandwidth") \
            or not d.has("interconnect.bandwidth"):
        return None
    return (f"{n:,.0f} devices work together (workload {w.id}), more than one scale-up domain of {domain}, but the "
            "device has no network figure (network: {bandwidth, latency}): collectives between domains are counted "
            "at the interconnect's rate, which understates them; give the network the servers are joined by")


def no_rate(w, d) -> str:
    """The device lacks a rate at the workload's precision: which, and the ones it has."""
    has = list(dict.fromkeys(p.split(".")[1] for p in d.values if p.startswith(("compute.", "delivered."))))
    given, computes = w.get("precision"), arithmetic(w.get("precision"), d)
    named = given if given == computes else f"{computes} ({given} computes in it)"
    return (f"the device has no rate at {named}: times and rates not computed" +
            (f"; it has {', '.join(has)} (set the workload's precision, or an alternative's, to one of them)"
             if has else ""))


UNPOWERED = ("costed as bought, but no electricity price (costs.electricity): its power draw costs nothing in the "
             "running cost")


# -- what-if -----------------------------------------------------------------------------
