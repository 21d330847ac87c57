"""`sizing calibrate SCENARIO`: the efficiencies of the scenario's devices fitted to its benchmark records. Each record
tied to a prediction (`workload` + `scenario_device`) fits the efficiencies its prediction depends on: the bandwidth
efficiency where decode is memory-bound, the compute efficiency (the 8-bit one at 8-bit precisions) where the
prefill or the decode is compute-bound enough to move it (both, where both do).
Each efficiency minimises the sum over its records of log(measured / predicted)^2, searched on a fine grid with the
engine vectorised over it and refined between the grid's neighbours (the other efficiencies held, in turn, until
they settle)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import formulas as F
from ..evaluate import Results, what_if
from ..pull import Change
from .fit import golden, log_error

GRID = np.geomspace(0.01, 1.0, 1201)        # candidate efficiencies: steps of 0.4 %, at most 100 % of the peak
ROUNDS = 40                 # at most; the rounds stop when no efficiency moves by 0.01 % of itself
SENSITIVE = 0.2             # an efficiency is fitted when the predictions move at least 0.2 % per 1 % of it


@dataclass(frozen=True)
class Tie:
    record: str
    device: str                 # the scenario's device
    workload: str
    regime: str                 # memory | compute: the bound of the prediction's decode step
    compute: str                # the compute efficiency input the prediction reads (efficiency or efficiency_8bit)
    bandwidth: str              # its bandwidth efficiency input
    prediction: str             # the environment key of the record's prediction
    measured: float             # tokens/s


@dataclass(frozen=True)
class RecordFit:
    tie: Tie
    before: float
    after: float


@dataclass(frozen=True)
class Fitted:
    key: str                    # device.h100.bandwidth_efficiency
    old: float
    new: float
    records: tuple[str, ...]
    before: float               # the log error of its records before and after
    after: float

    @property
    def at_limit(self) -> bool:
        """The best fit wants more than the device's peak: the records beat the declared figures."""
        return self.new >= GRID[-1]

    @property
    def field(self) -> str:
        return self.key.split(".", 2)[2]

    @property
    def device(self) -> str:
        return self.key.split(".", 2)[1]


@dataclass(frozen=True)
class Calibration:
    fitted: tuple[Fitted, ...]
    records: tuple[RecordFit, ...]

    @property
    def before(self) -> float:
        return log_error([f.tie.measured for f in self.records], [f.before for f in self.records])

    @property
    def after(self) -> float:
        return log_error([f.tie.measured for f in self.records], [f.after for f in self.records])

    def changes(self, r: Results, today: str) -> list[Change]:
        """The fitted values as edits of the scenario's YAML (`sizing pull`'s writer keeps comments and layout), each
        with a `field_sources` line naming the records; a value the fit leaves as it was is not written."""
        out = []
        for f in self.fitted:
            inp = r.inputs[f.key]
            new = f"{100 * f.new:.1f} %"
            if abs(f.new - f.old) < 5e-4:
                continue
            where = f"scenario line {inp.value.line}" if inp.value.file == r.scenario.file else \
                (inp.value.source or "a default")
            note = (f"sizing calibrate {today}: fitted to {', '.join(f.records)} (log error {f.before:.3f} -> "
                    f"{f.after:.3f}; was {100 * f.old:.1f} %)")
            out += [Change(f.key, ("devices", f.device, f.field), inp.value.text, new, where),
                    Change(f.key, ("devices", f.device, "field_sources", f.field), "", note, where)]
        return out


def ties(r: Results) -> list[Tie]:
    """Every benchmark record tied to a prediction, with the efficiency its regime fits."""
    out = []
    for p in r.pairs:
        if p.kind != "benchmark" or "predicted_tokens_per_s" not in p.values:
            continue
        planned = {x.d.id: x for x in p.planned}
        pred = planned["predicted_tokens_per_s"]
        target = next(ref.key for ref in F.refs(pred.expr))            # workload/device/tokens_per_s
        wid, did, _ = target.split("/")
        tied = r.pair(wid, did)
        regime = "memory" if tied is not None and tied.values.get("bound") == "memory" else "compute"
        keys = [next(ref.key for ref in F.refs(planned[q].expr) if ref.key.startswith("device."))
                for q in ("calibrated_efficiency", "calibrated_bandwidth_efficiency")]
        measured = p.values["measured_vs_predicted"] * p.values["predicted_tokens_per_s"]
        out.append(Tie(p.workload, did, wid, regime, *keys, pred.key, measured))
    return out


def material(r: Results, mine: list[Tie], base: dict) -> list[str]:
    """The efficiencies a device's records depend on: those a 10 % change moves the predictions by 2 % or more
    on average (a generate workload's prefill is compute-bound even where its decode is memory-bound); with none,
    the one its records' regime names."""
    out = []
    for key in dict.fromkeys(k for t in mine for k in (t.compute, t.bandwidth)):
        env = what_if(r, {key: 0.9 * float(r.inputs[key].value.value)})
        moved = np.mean([abs(math.log(float(env[t.prediction]) / float(base[t.prediction]))) for t in mine])
        if moved / math.log(1 / 0.9) >= SENSITIVE:
            out.append(key)
    memory = sum(t.regime == "memory" for t in mine) * 2 >= len(mine)
    return out or [mine[0].bandwidth if memory else mine[0].compute]


def squared_errors(mine: list[Tie], env: dict, shape: tuple = ()) -> np.ndarray:
    """The sum over the records of log(measured / predicted)^2: one value, or one per candidate of a grid."""
    return sum(np.log(t.measured / np.broadcast_to(np.asarray(env[t.prediction], float), shape)) ** 2 for t in mine)


def calibrate(r: Results) -> Calibration:
    found = ties(r)
    base = what_if(r, {})
    devices = list(dict.fromkeys(t.device for t in found))
    records = {d: [t for t in found if t.device == d] for d in devices}
    fitted_by = {key: d for d in devices for key in material(r, records[d], base)}
    keys = list(fitted_by)
    now = {k: float(r.inputs[k].value.value) for k in keys}
    start = dict(now)
    for _ in range(ROUNDS if len(keys) > 1 else 1):
        previous = dict(now)
        for key in keys:
            mine = records[fitted_by[key]]
            i = int(np.nanargmin(squared_errors(mine, what_if(r, {**now, key: GRID}), GRID.shape)))

            def scalar_error(e: float) -> float:
                return float(squared_errors(mine, what_if(r, {**now, key: e})))
            now[key] = golden(scalar_error, GRID[max(i - 1, 0)], GRID[min(i + 1, len(GRID) - 1)], tol=1e-6) \
                if 0 < i < len(GRID) - 1 else float(GRID[i])
        if all(abs(now[k] - previous[k]) <= 1e-4 * previous[k] for k in keys):
            break
    after = what_if(r, now)
    fits = tuple(RecordFit(t, float(base[t.prediction]), float(after[t.prediction])) for t in found)
    fitted = []
    for key in keys:
        mine = [f for f in fits if f.tie.device == fitted_by[key]]
        m = [f.tie.measured for f in mine]
        fitted.append(Fitted(key, start[key], now[key], tuple(f.tie.record for f in mine),
                             log_error(m, [f.before for f in mine]), log_error(m, [f.after for f in mine])))
    return Calibration(tuple(fitted), fits)
