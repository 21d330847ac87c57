"""Sweeps: the pairs re-run over a swept field's values (vectorised), a precision re-planned per value, the
crossovers found along the way, and which quantities a sweep shows (those that move with it, from the graph)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from . import formulas as F
from . import kinds as K
from .binding import Binder, pair_plan
from .evaluate import Pair, SweepResult, run, scalar, sweep_paths
from .results import Crossover
from .schema import Entity, Scenario
from .scenario import Sweep


def sweep(scn: Scenario, binder: Binder, pairs: list[Pair], env: dict[str, Any]) -> list[SweepResult]:
    s: Sweep = scn.sweep
    out = []
    for w in scn.workloads.values():
        if (s.workload and w.id != s.workload) or (not s.workload and w.alternative_of):
            continue                      # a sweep without a workload sweeps the workloads, not their alternatives
        if s.parameter == "precision":
            res = precision_sweep(scn, w, s, pairs) if scn.compare else None
        else:
            keys = [f"workload.{w.id}.{p}" for p in sweep_paths(s.parameter)]
            if not all(k in binder.inputs for k in keys):
                continue
            res = numeric_sweep(w, [p for p in pairs if p.workload == w.id], env, keys, s)
        if res:
            out.append(res)
    return out


def numeric_sweep(w: Entity, pairs: list[Pair], env: dict[str, Any], keys: list[str], s: Sweep) -> SweepResult:
    xs = np.asarray(s.values, dtype=float)
    senv = dict(env)
    for k in keys:
        senv[k] = xs
    run(pairs, senv)
    series = {p.device: {x.d.id: as_array(senv[x.key], len(xs)) for x in p.present()} for p in pairs}
    res = SweepResult(s.parameter, w.id, [float(x) for x in xs], series, [])
    res.crossovers = crossovers(w, pairs, senv, keys, res)
    return res


def as_array(v: Any, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(v), (n,))


def precision_sweep(scn: Scenario, w: Entity, s: Sweep, pairs: list[Pair]) -> SweepResult:
    series: dict[str, dict[str, list]] = {}
    for prec in s.values:
        tmp = Binder(scn)
        wp = Entity(w.kind, w.id, dict(w.values), w.line, w.col, dict(w.follows))
        wp.values["precision"] = replace(w.values["precision"], value=prec, text=prec)
        for path, src in w.follows.items():          # a default that copies the precision follows the sweep
            if src == "precision":
                wp.values[path] = replace(w.values[path], value=prec, text=prec)
        ps = [Pair(w.id, d, w.get("kind"), pair_plan(tmp, wp, scn.devices[d], prec)) for d in scn.compare]
        senv = run(ps, tmp.values())
        for p in ps:
            dev = series.setdefault(p.device, {})
            absent = next((q.absent for q in pairs if q.workload == w.id and q.device == p.device), frozenset())
            for x in p.planned:                     # a cost not offered on the device is left out, as in its pair
                if x.d.id not in absent:
                    dev.setdefault(x.d.id, []).append(None if isinstance(x.expr, F.Missing) else scalar(senv[x.key]))
    return SweepResult("precision", w.id, list(s.values), series, [])


def crossovers(w: Entity, pairs: list[Pair], env: dict, keys: list[str], res: SweepResult) -> list[Crossover]:
    """Where one device starts to beat another (time quantities), and where decode turns compute-bound."""
    out = []
    base = K.get(w.get("kind")).crossover
    xs = np.asarray(res.values)
    for i, a in enumerate(pairs):
        for b in pairs[i + 1:]:
            ta, tb = res.series[a.device].get(base), res.series[b.device].get(base)
            if ta is None or tb is None:
                continue
            diff = np.asarray(ta, dtype=float) - np.asarray(tb, dtype=float)
            for j in np.nonzero(np.sign(diff[:-1]) * np.sign(diff[1:]) < 0)[0]:
                x = refine((a, b), base, env, keys, xs[j], xs[j + 1])
                faster = b.device if diff[j + 1] > 0 else a.device
                slower = a.device if faster == b.device else b.device
                out.append(Crossover("faster", w.id, res.parameter, x, quantity=base, faster=faster, slower=slower,
                                     between=(a.device, b.device)))
    for p in pairs:
        bound = res.series[p.device].get("bound")
        if bound is None:
            continue
        turned = np.nonzero(np.asarray(bound) == "compute")[0]
        if len(turned) and turned[0] > 0:
            out.append(Crossover("compute_bound", w.id, res.parameter, res.values[int(turned[0])], device=p.device))
    return out


def refine(ab, qid: str, env: dict, keys: list[str], lo: float, hi: float) -> float:
    """Locate a sign change of ta - tb between lo and hi on a fine geometric grid."""
    xs = np.geomspace(lo, hi, 2001)
    senv = dict(env)
    for k in keys:
        senv[k] = xs
    run(list(ab), senv, ("planned",))
    ta, tb = (np.broadcast_to(senv[f"{p.workload}/{p.device}/{qid}"], xs.shape) for p in ab)
    diff = ta - tb
    j = int(np.nonzero(np.sign(diff[:-1]) * np.sign(diff[1:]) <= 0)[0][0])
    x0, x1, d0, d1 = xs[j], xs[j + 1], diff[j], diff[j + 1]
    return float(x0 - d0 * (x1 - x0) / (d1 - d0)) if d1 != d0 else float(x0)


CROSSOVER_SIZES = tuple(float(x) for x in np.geomspace(8, 65536, 400))


def size_crossovers(scn: Scenario, pairs: list[Pair], env: dict, sweeps: list[SweepResult]) -> list[Crossover]:
    """The square matrix size where one device starts to beat another, for workloads not swept by size."""
    out = []
    swept = {s.workload for s in sweeps if s.parameter == "size"}
    for w in scn.workloads.values():
        mine = [p for p in pairs if p.workload == w.id]
        if not K.get(w.get("kind")).size_crossover or w.id in swept or len(mine) < 2:
            continue
        hidden = Sweep("size", CROSSOVER_SIZES, w.id, w.line, w.col)
        res = numeric_sweep(w, mine, env, [f"workload.{w.id}.{p}" for p in sweep_paths("size")], hidden)
        out += [c for c in res.crossovers if c.kind == "faster"]
    return out
