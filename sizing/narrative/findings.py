"""Findings, break-even points and crossovers, in the engine's figures."""

from __future__ import annotations

from .. import formulas as F
from ..evaluate import Pair, Results, scalar
from ..render.format import human, number
from ..results import Crossover

from .common import pairs_of, show, workload_ids, workload_title


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
    if v.get("devices_to_fit") == 0:
        return (f"does not fit on any number of devices: one sequence's activations "
                f"({show(p, 'activation_per_sequence')}) outgrow a device (recompute or tensor parallelism would "
                "help)")
    if v.get("duration_that_fits") is None:
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
            if b is not None:
                out.append(f"{p.workload} on {p.device}: decode's weight matrices turn compute-bound at batch "
                           f"{human(b, '')}; the batch is {now}.")
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
