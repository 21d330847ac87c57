"""Sweeps: the pairs re-run over a swept field's values (vectorised), a precision re-planned per value, the
crossovers found along the way, and which quantities a sweep shows (those that move with it, from the graph)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import formulas as F
from . import kinds as K
from .binding import Binder, pair_plan
from .evaluate import Pair, SweepResult, decide_with, run, scalar, sweep_paths
from .results import Crossover
from .schema import Entity, Scenario
from .scenario import Sweep


def sweep(scn: Scenario, inputs: dict[str, Any], pairs: list[Pair], env: dict[str, Any]) -> list[SweepResult]:
    """The sweep of each swept workload (env: the input cells' values)."""
    s: Sweep = scn.sweep
    out = []
    for w in swept_workloads(scn):
        if s.parameter == "precision":
            res = precision_sweep(scn, w, s, pairs) if scn.compare else None
        else:
            keys = [f"workload.{w.id}.{p}" for p in sweep_paths(s.parameter)]
            if not all(k in inputs for k in keys):
                continue
            res = numeric_sweep(w, [p for p in pairs if p.workload == w.id], env, keys, s)
        if res:
            out.append(res)
    return out


def swept_workloads(scn: Scenario) -> list[Entity]:
    """The workloads a sweep sweeps: the one it names, else every workload that is not an alternative."""
    s = scn.sweep
    return [w for w in scn.workloads.values()
            if not ((s.workload and w.id != s.workload) or (not s.workload and w.alternative_of))]


def swept(scn: Scenario, inputs: dict[str, Any]) -> bool:
    """Whether sweep() (or grids(), for two fields) finds a workload to sweep, without taking the sweep."""
    s = scn.sweep
    fields = [d.parameter for d in (s, s.by) if d is not None and d.parameter != "precision"]
    if not fields:                              # a precision sweep sweeps every swept workload
        return bool(scn.compare and swept_workloads(scn))
    return any(all(f"workload.{w.id}.{p}" in inputs for f in fields for p in sweep_paths(f))
               for w in swept_workloads(scn))


SHOWN = 5           # quantities a sweep shows per device
# A fleet's size and monthly cost, where they move: a sweep of a served workload with traffic always shows them.
FLEET = ("fleet_devices", "monthly_cost")
# After the kind's usual sweep figures, what a capacity question asks first.
CAPACITY = ("replicas", "fleet_devices", "average_utilisation", "monthly_cost", "cost_per_million_tokens",
            "cost_per_million_requests", "ttft_p95", "response_p95", "meets_targets")


def moving(p: Pair, keys: set[str]) -> list[F.Planned]:
    """The pair's quantities that change with the swept inputs (they read one, or a quantity that does), in
    evaluation order: the graph's dependencies, not a list."""
    moved, out = set(keys), []
    for x in p.present():
        if any(r.key in moved for r in F.refs(x.expr)):
            moved.add(x.key)
            out.append(x)
    return out


def shown(kind: str, pairs: list[Pair], keys: set[str]) -> tuple[str, ...]:
    """The quantities a sweep shows: those that move with it, the kind's usual sweep figures first (but room kept
    for the fleet's devices and monthly cost where they move), then what a capacity question asks (replicas,
    utilisation, monthly cost), then the kind's headline figures."""
    moves = {x.d.id for p in pairs for x in moving(p, keys)}
    k = K.get(kind)
    order = [q for q in dict.fromkeys((*k.swept, *CAPACITY, *k.headline, *k.key_figures)) if q in moves]
    view = order[:SHOWN]
    fleet = [q for q in FLEET if q in moves]            # with traffic: what the decision ranks, kept in view
    if any(q not in view for q in fleet):
        view = [q for q in order if q not in fleet][:SHOWN - len(fleet)] + fleet
    return tuple(view)


def numeric_sweep(w: Entity, pairs: list[Pair], env: dict[str, Any], keys: list[str], s: Sweep) -> SweepResult:
    kind = w.get("kind")
    on_view = shown(kind, pairs, set(keys))
    table = Slices(pairs, env, keys, np.asarray(s.values, dtype=float))
    table.fill({*on_view, K.get(kind).crossover, *READ})
    series = {p.device: Series(table, p) for p in pairs}
    res = SweepResult(s.parameter, w.id, table.xs.tolist(), series, [], on_view)
    res.crossovers = crossovers(w, pairs, env, keys, res)
    return res


CHUNK = 65_536          # sweep points evaluated at once: a few hundred kB an array, so a chain of numpy steps stays in
                        # cache instead of streaming megabytes through memory at each step
READ = ("bound", "fits", "tokens_per_s", "tokens_per_s_per_user", "step_time")   # what the charts and crossovers read


class Slices:
    """A numeric sweep evaluated in slices. The quantities the outputs show are kept as the sweep is taken; the
    rest (a JSON table of every quantity asks for them) are filled in by evaluating the sweep again on first use,
    so a million-point sweep does not hold a few gigabytes that only a JSON reader would read."""

    def __init__(self, pairs: list[Pair], env: dict[str, Any], keys: list[str], xs: np.ndarray):
        self.pairs, self.env, self.keys, self.xs = pairs, env, keys, xs
        self.out: dict[str, Any] = {}
        self.complete = False

    def fill(self, qids: set[str] | None = None) -> None:
        """Evaluate the sweep, keeping the quantities `qids` (every quantity when None)."""
        want = [x.key for p in self.pairs for x in p.present() if qids is None or x.d.id in qids]
        n = len(self.xs)
        for lo in range(0, n, CHUNK):             # in slices that stay in the processor's cache
            senv = dict(self.env)
            for k in self.keys:
                senv[k] = self.xs[lo:lo + CHUNK]
            run(self.pairs, senv)
            for key in want:
                gather(self.out, key, senv[key], lo, n)
        self.complete = qids is None

    def get(self, key: str) -> np.ndarray:
        if key not in self.out and not self.complete:
            self.fill()
        return as_array(self.out[key], len(self.xs))


class Series(Mapping):
    """One device's quantities along a sweep (quantity id -> array of values)."""

    def __init__(self, table: Slices, pair: Pair):
        self.table, self.keys_of = table, {x.d.id: x.key for x in pair.present()}

    def __getitem__(self, qid: str) -> np.ndarray:
        return self.table.get(self.keys_of[qid])

    def __iter__(self):
        return iter(self.keys_of)

    def __len__(self) -> int:
        return len(self.keys_of)


def gather(out: dict[str, Any], key: str, v: Any, lo: int, n: int) -> None:
    """Place one slice of a quantity in its array of n points; a quantity the sweep does not move stays one
    value (the same in every slice)."""
    if np.ndim(v) == 0:
        out.setdefault(key, v)
        return
    if key not in out:
        out[key] = np.empty(n, dtype=v.dtype)
    elif out[key].dtype != v.dtype:          # a label column that meets a longer label in a later slice
        out[key] = out[key].astype(np.result_type(out[key], v))
    out[key][lo:lo + len(v)] = v


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
    return SweepResult("precision", w.id, list(s.values), series, [], K.get(w.get("kind")).swept_precision)


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


# -- a grid: two fields swept together, a decision in every cell ---------------------------------------------
@dataclass
class GridResult:
    """Two fields of one workload swept together: rows by the first, columns by the second. In each cell the
    quantities that move (per device) and the decision's recommendation with its objective value."""

    workload: str
    rows: str
    row_values: list
    columns: str
    column_values: list
    series: dict[str, dict[str, list[list]]]     # device -> quantity -> rows x columns (None: not computed there)
    shown: tuple[str, ...]
    best: list[list[str | None]]                 # the recommended option's label (None: none qualifies, or no decision)
    value: list[list[float | None]]              # its objective value
    objective: str = ""                          # the decision's quantity ("" without a decision on the workload)
    unit: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"workload": self.workload, "rows": {"field": self.rows, "values": self.row_values},
                "columns": {"field": self.columns, "values": self.column_values}, "shown": list(self.shown),
                "objective": self.objective or None, "recommendation": self.best, "value": self.value,
                "series": self.series}


def grids(scn: Scenario, results) -> list[GridResult]:
    s = scn.sweep
    out = []
    for w in swept_workloads(scn):
        g = grid_of(scn, results, w, s, s.by)
        if g is not None:
            out.append(g)
    return out


def grid_of(scn: Scenario, results, w: Entity, a: Sweep, b: Sweep) -> GridResult | None:
    """The grid of `a` (rows) by `b` (columns) for workload `w`: a precision re-plans the scenario (one evaluation
    per precision); the numeric fields run vectorised over every cell; the decision is taken in each cell."""
    from .evaluate import evaluate, what_if

    batch = "batch" in (a.parameter, b.parameter)       # each cell at its batch: none found by sizing beside it
    results = results.written if batch and results.written is not None else results
    structural = next((d for d in (a, b) if d.parameter == "precision"), None)
    numeric = [d for d in (a, b) if d is not structural]
    if structural is None:
        points = [(x, y) for x in a.values for y in b.values]
        place = [(i, j) for i in range(len(a.values)) for j in range(len(b.values))]
        variants = [(None, results)]
    else:
        points = [(x,) for x in numeric[0].values]
        own = w.get("precision")                         # the scenario's own precision is the evaluation at hand
        variants = [(k, results if v == own else evaluate(with_values(scn, w, {"precision": v}), search=not batch))
                    for k, v in enumerate(structural.values)]
    n = len(points)
    series: dict[str, dict[str, list[list]]] = {}
    best = [[None] * len(b.values) for _ in a.values]
    value: list[list[float | None]] = [[None] * len(b.values) for _ in a.values]
    chosen: tuple[str, ...] = ()
    objective = unit = ""
    for k, res in variants:
        keys = {d.parameter: [f"workload.{w.id}.{p}" for p in sweep_paths(d.parameter)] for d in numeric}
        if not all(key in res.inputs for ks in keys.values() for key in ks):
            return None                                # the workload has no such field
        overrides = {key: np.array([pt[i] for pt in points], dtype=float)
                     for i, d in enumerate(numeric) for key in keys[d.parameter]}
        env = what_if(res, overrides)
        pairs = [p for p in res.pairs if p.workload == w.id]
        moved = {key for ks in keys.values() for key in ks}
        chosen = tuple(dict.fromkeys((*(K.get(w.get("kind")).swept_precision if structural else ()),
                                      *shown(w.get("kind"), pairs, moved))))[:SHOWN]
        which = next((i for i, dec in enumerate(res.decisions) if dec.workload == w.id), None)
        base = shards(res, w)
        if which is not None:
            objective, unit = res.decisions[which].quantity, res.decisions[which].unit
        cells = place if structural is None else \
            [((k, j) if structural is a else (j, k)) for j in range(n)]
        for j, (row, col) in enumerate(cells):
            for p in pairs:
                for x in p.present():
                    if x.d.id in chosen:
                        grid = series.setdefault(p.device, {}).setdefault(
                            x.d.id, [[None] * len(b.values) for _ in a.values])
                        grid[row][col] = scalar(np.broadcast_to(env[x.key], (n,))[j])
            if which is not None:
                here = cell(env, n, j)
                if shards(res, w, here) == base:
                    dec = decide_with(res, here, which)
                else:        # another device needs sharding here: the options differ, so the cell is evaluated whole
                    given = {path: x for i, d in enumerate(numeric) for path in sweep_paths(d.parameter)
                             for x in [points[j][i]]}
                    if structural is not None:
                        given["precision"] = structural.values[k]
                    whole = evaluate(with_values(scn, w, given), search=not batch)
                    dec = next((d for d in whole.decisions if d.workload == w.id), None)
                if dec is not None and dec.best is not None:
                    best[row][col], value[row][col] = dec.best.label, dec.best.value
    return GridResult(w.id, a.parameter, list(a.values), b.parameter, list(b.values), series, chosen, best, value,
                      objective, unit)


def cell(env: dict[str, Any], n: int, j: int) -> dict[str, Any]:
    """One cell of a vectorised run: each array of the run's length at index j."""
    return {k: v[j] if isinstance(v, np.ndarray) and v.shape == (n,) else v for k, v in env.items()}


def with_values(scn: Scenario, w: Entity, given: dict[str, Any], keep: bool = False) -> Scenario:
    """The scenario with fields of workload `w` (and of its alternatives that do not set their own) at other values
    (a precision carries the defaults that follow it), and no sweep: one cell of a grid. `keep`: with the automatic
    alternatives as they are (a draw of the uncertainty, ranked among the same options)."""
    from . import alternatives

    scn = scn if keep else alternatives.unsharded(scn)
    w = scn.workloads[w.id]
    own = alternatives.changes(w)
    workloads = dict(scn.workloads)
    for e in scn.workloads.values():
        if e.id != w.id and e.alternative_of != w.id:
            continue
        values = dict(e.values)
        for field, x in given.items():
            if e.id != w.id and field in own.get(e.alternative, {}):
                continue                                   # the alternative sets its own
            paths = [field] if field != "precision" else \
                ["precision", *(p for p, src in e.follows.items() if src == "precision")]
            for path in paths:
                if path in values:
                    values[path] = replace(values[path], value=x, text=str(x))
        workloads[e.id] = replace(e, values=values)
    return replace(scn, workloads=workloads, sweep=None, uncertainty=None)


def shards(res, w: Entity, values: dict[str, Any] | None = None) -> tuple:
    """Which devices would need an automatic 'fit' alternative (alternatives.sharded): the devices that do not fit
    the workload or one of its alternatives and how many would hold it, from the base values or from one cell's
    (`values`: key -> value)."""
    from . import alternatives

    out = []
    for p in res.pairs:
        e = res.scenario.workloads.get(p.workload)
        if e is None or e.automatic or w.id not in (e.id, e.alternative_of) or p.kind != "generate":
            continue
        get = (lambda q: values.get(f"{p.workload}/{p.device}/{q}")) if values is not None else p.values.get
        if (n := alternatives.holding(get("fits"), get("devices_to_fit"))) is not None:
            out.append((p.workload, p.device, n))
    return tuple(out)
