"""The report's charts, drawn from the engine's values (and its re-runs over a grid)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import currency
from ... import formulas as F
from ... import kinds as K
from ...evaluate import Pair, Results, sweep_paths, what_if
from ...narrative import defs, held_against, label, plain, used_keys
from .. import charts
from ..format import human, number
from .context import Chart


UTILISATION_GRID = np.linspace(0.05, 1.0, 96)


def colours(r: Results) -> dict[str, int]:
    return {did: i for i, did in enumerate(r.scenario.compare)}


def workload_charts(r: Results, wid: str, pairs: list[Pair]) -> tuple[Chart, ...]:
    kind = K.get(pairs[0].kind)
    found = [roofline_chart(r, wid, pairs) if kind.roofline_point else None,
             memory_chart(r, wid, pairs) if kind.memory else None]
    for s in r.sweeps:
        if s.workload == wid and s.parameter == "batch":
            found.append(batch_chart(r, s))
        if s.workload == wid and s.parameter == "size":
            found.append(crossover_chart(r, wid, pairs, s))
    if kind.cost_per_unit:
        found.append(utilisation_chart(r, wid, pairs))
    return tuple(c for c in found if c is not None)


class Named:
    """A pair's inputs (by role) and quantities (by id) as references, to evaluate one definition on them."""

    def __init__(self, names):
        self._names = set(names)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return F.Ref(name, name) if name in self._names else F.Missing(frozenset([name]))

    def has(self, name: str) -> bool:
        return name in self._names

    def text(self, name: str) -> None:
        return None


def roof(r: Results, p: Pair, intensity) -> Any:
    """The engine's roofline (the attainable_rate definition) for the pair's device, at any intensities."""
    env = {r.inputs[ref.key].role: r.inputs[ref.key].value.value
           for x in p.present() for ref in F.refs(x.expr) if ref.key in r.inputs}
    env.update(p.values)
    env["intensity"] = intensity
    d = F.definition("attainable_rate")
    if d is None:
        return None
    e = d.fn(Named(env))
    return None if isinstance(e, F.Missing) else F.evaluate(e, env)


def roofline_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    col = colours(r)
    ceilings, points = [], []
    lo = min((p.values["intensity"] for p in pairs if "intensity" in p.values), default=None)
    hi = max((p.values.get("ridge_point", 0) for p in pairs), default=0)
    if lo is None or not hi:
        return None
    xs = np.geomspace(min(lo, hi) / 10, max(lo, hi) * 10, 200)
    for p in pairs:
        ys = roof(r, p, xs) if "intensity" in p.values else None
        if ys is None:
            continue
        i = p.values["intensity"]
        ceilings.append(charts.Series(p.device, col[p.device], list(xs), list(ys)))
        points.append(charts.Point(p.device, col[p.device], i, float(roof(r, p, i))))
        if p.kind == "matmul" and "effective_rate" in p.values:
            points.append(charts.Point(p.device, col[p.device], i, p.values["effective_rate"], hollow=True))
    if not ceilings:
        return None
    what = K.get(pairs[0].kind).roofline_point
    hollow = " Hollow dot: the rate achieved with the copies, transfers and launch included." \
        if any(p.hollow for p in points) else ""
    return Chart(f"Roofline of {wid}: each device's ceiling (peak rate, and memory bandwidth × intensity below "
                 f"the ridge point); the dot is {what} on that device.{hollow}",
                 charts.roofline(f"Roofline: {wid}", ceilings, points))


def memory_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    """Each device's memory need, in its parts, against the capacity its `fits` check compares it with."""
    col = colours(r)
    memory = K.get(pairs[0].kind).memory
    train = pairs[0].kind == "train"
    bars = []
    for p in pairs:
        parts = tuple((words, p.values[q]) for words, q in memory.parts if isinstance(p.values.get(q), float))
        if parts:
            held = held_against(r, p, memory.check)
            n = p.values.get("devices")
            label = f"{p.device} × {n:g}" if train and isinstance(n, float) else p.device
            bars.append(charts.Bar(label, col[p.device], parts, held[1] if held else None))
    if not bars:
        return None
    mark = " (black mark)" if any(b.capacity is not None for b in bars) else ""
    whose = ("the usable memory of the devices the run uses (each bar names how many), as its fit check counts it"
             if train else "each device's capacity (one replica's devices) as its fit check counts it")
    return Chart(f"Memory of {wid}, in its parts, against {whose}{mark}.", charts.memory(f"Memory: {wid}", bars))


PLOTTED = 400          # points a chart draws of a sweep at most: more cannot be seen at a page's width


def plotted(n: int) -> np.ndarray:
    """The indices of a sweep's points a chart draws: all of up to PLOTTED, else PLOTTED evenly spaced (the first
    and the last included)."""
    return np.arange(n) if n <= PLOTTED else np.unique(np.linspace(0, n - 1, PLOTTED).round().astype(int))


def batch_chart(r: Results, s) -> Chart | None:
    col = colours(r)
    at = plotted(len(s.values))
    xs = [float(s.values[i]) for i in at]
    user, total, step, unfit = [], [], [], []
    for did, q in s.series.items():
        if "tokens_per_s_per_user" not in q:
            continue
        c = col.get(did, 0)
        picked = {k: plain(np.asarray(q[k])[at]) for k in ("tokens_per_s_per_user", "tokens_per_s", "token_interval")
                  + (("fits",) if "fits" in q else ())}
        user.append(charts.Series(did, c, xs, picked["tokens_per_s_per_user"]))
        total.append(charts.Series(did, c, xs, picked["tokens_per_s"]))
        step.append(charts.Series(did, c, xs, picked["token_interval"]))
        unfit += [charts.Point(did, c, x, t, y2=rate) for x, t, rate, ok in
                  zip(xs, picked["token_interval"], picked["tokens_per_s"], picked.get("fits", [])) if ok is False]
    if not user:
        return None
    target = r.inputs.get(f"workload.{s.workload}.targets.per_token_p95")
    return Chart(f"Batch sweep of {s.workload}: throughput per user while decoding and in total (left), and the "
                 f"time between a user's tokens, prefills included, against the per-token target (right; the "
                 f"target checks this time). A cross marks a batch that does not fit in memory (in both panels).",
                 charts.batch_sweep(f"Batch sweep: {s.workload}", user, total, step,
                                    target.value.value if target else None, unfit))


def crossover_chart(r: Results, wid: str, pairs: list[Pair], s) -> Chart | None:
    """Elapsed time vs size, re-evaluated by the engine on a fine grid over the sweep's range."""
    col = colours(r)
    keys = [f"workload.{wid}.{f}" for f in sweep_paths("size")]
    xs = np.geomspace(min(s.values) / 4, max(s.values), 200)     # a little below the sweep: both sides of it
    env = what_if(r, {k: xs for k in keys}, pairs)
    series = [charts.Series(p.device, col[p.device], list(xs),
                            list(np.broadcast_to(env[f"{wid}/{p.device}/total_time"], xs.shape)))
              for p in pairs if f"{wid}/{p.device}/total_time" in env]
    marks = []
    for c in s.crossovers:
        if c.kind == "faster":
            marks.append(charts.Point(f"{c.faster} faster from {number(c.at)}", 0, c.at, 0.0))
    if not series:
        return None
    return Chart(f"Elapsed time of {wid} against the size of the product (m = n = k), transfers and overheads "
                 f"included; the dotted line marks where the faster device changes.",
                 charts.crossover(f"Link crossover: {wid}", series, marks, "size"))


def elsewhere(r: Results, wid: str) -> str:
    """Where the recommendation is an alternative of the workload, that this chart is not of it: ' The
    recommendation, H100 SXM5 80GB (batch 32), is an alternative of code: its figures are in its own section.' (a
    procurement reviewer looked for the recommended fleet's $5.39 on a chart of the stated batch's)."""
    from ...narrative.memo import option_words
    best = next((d.best for d in r.decisions if d.workload == wid and d.best is not None), None)
    if best is None or not best.workload or best.workload == wid:
        return ""
    return (f" The recommendation, {option_words(r, best, short=True)}, is an alternative of {wid}: its figures are "
            "in its own section.")


def utilisation_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    """Cost per unit of output vs utilisation: the engine re-run with the input that sets utilisation swept.

    Where an average traffic is given it sets the utilisation (of a fleet sized for the peak): it is swept from
    2 % to 100 % of the peak and the engine's average_utilisation is the x axis. Otherwise the stated
    utilisation is swept from 5 % to 100 %.
    """
    qid = K.get(pairs[0].kind).cost_per_unit
    if not any(qid in p.values for p in pairs):
        return None
    average, peak = (f"workload.{wid}.traffic.{f}" for f in ("average", "peak"))
    key = f"workload.{wid}.{sweep_paths('utilisation')[0]}"
    if peak in r.inputs and (average in used_keys(pairs) or key in r.inputs):
        grid = np.linspace(0.02, 1.0, 96)
        swept = {average: r.inputs[peak].value.value * grid} if average in used_keys(pairs) else {key: grid}
        env = what_if(r, swept, pairs)
        xs = {p.device: env.get(f"{wid}/{p.device}/average_utilisation") for p in pairs}
        what = "average traffic (2 % to 100 % of the peak) swept; the fleet is sized for the peak"
    elif key in r.inputs:
        env = what_if(r, {key: UTILISATION_GRID}, pairs)
        xs = {p.device: UTILISATION_GRID for p in pairs}
        what = "utilisation swept"
    else:
        return None
    col = colours(r)
    d = defs(pairs)[qid]
    name, factor = charts.scaled([p.values[qid] for p in pairs if isinstance(p.values.get(qid), float)
                                  and math.isfinite(p.values[qid])], d.unit)
    series, stated = [], []
    for p in pairs:
        x = xs[p.device]
        if not isinstance(p.values.get(qid), float) or not math.isfinite(p.values[qid]) or x is None:
            continue                      # not priced (infeasible) or not computed
        ys = np.broadcast_to(env[f"{wid}/{p.device}/{qid}"], np.shape(x)) / factor
        series.append(charts.Series(p.device, col[p.device], list(x), list(ys)))
        at = p.values.get("average_utilisation", r.inputs[f"workload.{wid}.traffic.utilisation"].value.value
                          if f"workload.{wid}.traffic.utilisation" in r.inputs else None)
        if at is not None:
            stated.append(charts.Point(p.device, col[p.device], at, p.values[qid] / factor))
    if not series:
        return None
    api = next((p.values["api_cost_per_million_tokens"] for p in pairs if qid == "cost_per_million_tokens"
                and isinstance(p.values.get("api_cost_per_million_tokens"), float)), None)
    reference = charts.Point(f"hosted API, {human(api, d.unit, d.display)}", 0, 0.0, api / factor) \
        if api is not None else None                  # its value in the legend: it may sit off the labelled ticks
    return Chart(f"{label(qid)} of {wid} against the average utilisation of the devices: the engine re-run with "
                 f"the {what}. Each device's fleet is held all month, sized for the peak, so idle time is paid for "
                 f"and the fleet is busy less of the time than the traffic's average is of its peak; renting on demand "
                 f"as traffic needs is not on this chart. Dots mark the scenario's traffic"
                 f"{'; the dashed line is the hosted API' if reference else ''}.{elsewhere(r, wid)}",
                 charts.cost_vs_utilisation(f"{label(qid)} vs utilisation: {wid}", series, stated,
                                            f"{label(qid).lower()} ({currency.label(name or d.unit)})", reference))
