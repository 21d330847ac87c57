"""Choosing the device-family defaults from the calibration records, and writing them with their evidence.

Per family and figure: the median of the values the calibration records imply (the figure that would
make each prediction match its record, the others at the defaults being chosen), rounded to 5 %; a
family with fewer than MIN_RECORDS calibration records for a figure takes the median over all families
(said so in its basis). Damped passes let the figures settle, since each record's implied value depends
on the others. The efficiencies and the latency floor trade against each other, so each is read where
the other weighs little: efficiencies from the records whose floor is under FLOOR_LITTLE of their time,
the floor (per family, by the same rule) as the median of the floors implied by the records where it is
over FLOOR_MUCH. Held-out records are never used.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import yaml

from ..catalog import HERE, measurements
from .records import FAMILIES, INFORMS, TIMES, device_of, family_of, figure_of, held_out, narrow, predict, skipped

MIN_RECORDS = 3
FLOOR_LITTLE = 0.15
FLOOR_MUCH = 0.25
FLOOR_START = 30e-6        # s per layer: the provisional floor the shares are first measured at
MAX_PASSES = 30
SETTLED = 0.005            # a pass whose targets all move less than this share from two passes before ends the loop
MAX_STEPS = 60              # evaluations at most (the Illinois step takes 4-8 on the records)
MATCHED = 1e-6             # a prediction within this log-ratio of its record matches it
TOLERANCE = 1e-6           # a root is found when its bracket is this share of the range (4e-6 of an efficiency
                           # on the log scale, 0.001 us of a floor: the figures are rounded to 5 % and 1 us)
FLOOR_MAX = 1e-3           # s per layer: the search's upper end
FLOOR_CATEGORIES = ("decode_batch1", "ttft", "encoder_latency")
# Where the passes start, for every family (the first pass reads the floor's weight at FLOOR_START).
START = {"efficiency": 0.6, "efficiency_8bit": 0.4, "bandwidth_efficiency": 0.7, "train_efficiency": 0.45,
         "train_efficiency_8bit": 0.4, "layer_overhead": FLOOR_START}
CHOSEN = ("efficiency", "efficiency_8bit", "bandwidth_efficiency", "train_efficiency", "train_efficiency_8bit")
RESERVE = {"value": "10 %", "basis": "vLLM's default gpu_memory_utilization of 0.9 (runtime context, allocator "
           "slack and CUDA graphs in the other 10 %); TensorRT-LLM and JetStream keep a similar margin; a training "
           "run is given the same (its CUDA context and the caching allocator's slack: assumed, not measured)"}


def fields(figs: dict[str, float], r: dict) -> dict[str, str]:
    """Device fields stating every figure for record `r` (the compute figures for the width of its arithmetic),
    as a scenario would; a figure the record's device states in the catalog is left to it."""
    wide = {n: v for n, v in figs.items() if not n.endswith("_8bit")}
    if narrow(r):
        wide.update({n[:-5]: v for n, v in figs.items() if n.endswith("_8bit")})
    own = stated(r)
    return {n: (f"{v * 1e6:.6g} us" if n == "layer_overhead" else f"{v * 100:.6g} %") for n, v in wide.items()
            if n not in own}


def stated(r: dict) -> set[str]:
    """The figures (by the device field a scenario sets, as `fields` names them) record `r`'s catalog device states
    itself for the width of its arithmetic, as the binding reads them: a stated `efficiency` serves every width, a
    stated `efficiency_8bit` only narrow arithmetic. Its records inform no family default of those."""
    from ..scenario import catalog
    device = catalog()[0][device_of(r)]
    wide = {n for n in START if not n.endswith("_8bit") and device.has(n)}
    return wide | {n[:-5] for n in START if n.endswith("_8bit") and narrow(r) and device.has(n)}


def informs(r: dict, name: str) -> bool:
    """Whether record `r` can inform the family figure `name` (its device does not state it)."""
    return name.removesuffix("_8bit") not in stated(r)


def implied(r: dict, figs: dict[str, float]) -> float | None:
    """The value of the figure record `r` informs that makes its prediction match (searched on a log scale
    between 2 % and 100 %), the family's other figures at `figs`; None when even 100 % falls short."""
    if r["metric"] == "mfu":
        return r["value"]
    gap = speed_gap(r, figs, figure_of(r, fields(figs, r)))
    top = gap(1.0)
    if top < 0:
        return None
    return math.exp(root(lambda u: gap(math.exp(u)), math.log(0.02), 0.0, top))


def speed_gap(r: dict, figs: dict[str, float], name: str):
    """log(predicted / measured speed) of record `r` as a function of the figure `name`, the others at `figs`
    (above 0: the prediction is faster)."""
    sign = -1 if r["metric"] in TIMES else 1
    return lambda x: sign * math.log(predict(r, fields({**figs, name: x}, r)) / r["value"])


def root(f, lo: float, hi: float, f_hi: float, f_lo: float | None = None) -> float:
    """Where the increasing function `f` crosses zero between `lo` and `hi` (`f_hi` = f(hi) >= 0), to within
    TOLERANCE of the range: regula falsi with the Illinois step (an end kept twice has its value halved), which
    keeps a bracket as bisection does in a third of its evaluations, the records' gaps being near straight lines.
    `lo` itself when f is not negative there."""
    f_lo = f(lo) if f_lo is None else f_lo
    if f_lo >= 0:
        return lo
    width, side = TOLERANCE * (hi - lo), 0
    for _ in range(MAX_STEPS):
        x = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        x = min(max(x, lo + width / 4), hi - width / 4)          # a step inside the bracket, however flat an end
        fx = f(x)
        if abs(fx) < MATCHED:
            return x
        if fx < 0:
            lo, f_lo, f_hi, side = x, fx, f_hi / 2 if side < 0 else f_hi, -1
        else:
            hi, f_hi, f_lo, side = x, fx, f_lo / 2 if side > 0 else f_lo, 1
        if hi - lo <= width:
            break
    return (lo + hi) / 2


def implied_floor(r: dict, figs: dict[str, float]) -> float:
    """The layer overhead that makes record `r`'s prediction match (searched between 0 and 1 ms; 0 when even
    no floor is too slow, 1 ms when even that is too fast)."""
    gap = speed_gap(r, figs, "layer_overhead")
    at_zero = gap(0.0)
    if at_zero <= 0:
        return 0.0
    at_max = gap(FLOOR_MAX)
    if at_max >= 0:
        return FLOOR_MAX
    return root(lambda x: -gap(x), 0.0, FLOOR_MAX, -at_max, -at_zero)


def calibration_records() -> list[dict]:
    out = held_out(measurements())
    return [r for r in measurements() if not skipped(r) and r["id"] not in out and r["category"] in INFORMS]


def floor_share(r: dict, figs: dict[str, float]) -> float:
    """The share of record `r`'s predicted time the latency floor takes at `figs`."""
    if r["metric"] == "mfu":
        return 0.0
    with_floor = predict(r, fields(figs, r))
    without = predict(r, fields({**figs, "layer_overhead": 0.0}, r))
    return 1 - (without / with_floor if r["metric"] in TIMES else with_floor / without)


def one_pass(figs: dict[str, dict[str, float]]) -> tuple[dict, dict]:
    """New figures from the implied values at `figs`, and the evidence: (family, figure) -> [(record, value)]."""
    evidence: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for r in calibration_records():
        if floor_share(r, figs[family_of(r)]) >= FLOOR_LITTLE:
            continue
        fam = family_of(r)
        name = figure_of(r, fields(figs[fam], r))
        if not informs(r, name):
            continue
        x = implied(r, figs[fam])
        if x is not None:
            evidence.setdefault((fam, name), []).append((r["id"], x))
    new = {fam: dict(f) for fam, f in figs.items()}
    for name in CHOSEN:
        for fam in FAMILIES:
            new[fam][name] = statistics.median(x for _, x in used(evidence, fam, name))
    return new, evidence


def pooled(evidence: dict, fam: str, name: str) -> list[tuple[str, float]]:
    """The records a family short of its own borrows: those of every family, but a CPU's for no accelerator (a
    CPU is not a GPU: its threads synchronise and its arithmetic runs differently)."""
    return [e for (f, n), xs in evidence.items() if n == name and (f != "cpu" or fam == "cpu") for e in xs]


def used(evidence: dict, fam: str, name: str) -> list[tuple[str, float]]:
    """The (record, implied value) pairs a family's figure is the median of: its own, or the pool's when it has
    fewer than MIN_RECORDS."""
    own = evidence.get((fam, name), [])
    return own if len(own) >= MIN_RECORDS else pooled(evidence, fam, name)


def round5(x: float) -> float:
    return round(x * 20) / 20


def floor(figs: dict[str, dict[str, float]]) -> tuple[dict[str, float], dict]:
    """Per family, the median floor its batch-1 calibration records imply (the median over every family where it
    has fewer than MIN_RECORDS), and the evidence: (family, 'layer_overhead') -> [(record, floor)]."""
    evidence: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for r in calibration_records():
        fam = family_of(r)
        weighs = r["category"] in FLOOR_CATEGORIES and floor_share(r, figs[fam]) >= FLOOR_MUCH
        if weighs and informs(r, "layer_overhead"):
            evidence.setdefault((fam, "layer_overhead"), []).append((r["id"], implied_floor(r, figs[fam])))
    return {fam: statistics.median(x for _, x in used(evidence, fam, "layer_overhead")) for fam in FAMILIES}, evidence


def choose() -> tuple[dict, dict]:
    """The family figures (SI) and their evidence: (family, figure) -> [(record, implied value)]. From the same
    start whatever was shipped, each pass moves the figures halfway to what the records imply, until what they
    imply has settled (`settled`), and the result is the mean of the last two passes: undamped, the efficiencies
    and the floor swap evidence (a record counts for the one that weighs in it) and alternate between two states.
    Efficiencies are rounded to 5 % at the end."""

    figs = last = {fam: dict(START) for fam in FAMILIES}
    targets: list[dict] = []
    for _ in range(MAX_PASSES):
        target, evidence = one_pass(figs)
        overhead, floors = floor(target)
        targets.append({fam: {**f, "layer_overhead": overhead[fam]} for fam, f in target.items()})
        last, figs = figs, halfway(figs, targets[-1])
        if len(targets) >= 3 and settled(targets[-3], targets[-1]):
            break
    figs = halfway(last, figs)
    figs = {fam: {n: x if n == "layer_overhead" else round5(x) for n, x in f.items()} for fam, f in figs.items()}
    return figs, {**evidence, **floors}


def settled(a: dict, b: dict) -> bool:
    """Whether every target moved less than SETTLED between two passes two apart: a fixed point, or the two states
    the floor and the efficiencies alternate between (a CPU's floor takes some passes to find its records)."""
    return all(abs(x - a[fam][n]) <= SETTLED * max(abs(x), abs(a[fam][n]), 1e-12) for fam, f in b.items()
               for n, x in f.items())


def halfway(a: dict, b: dict) -> dict:
    """Figures halfway between `a` and `b`, family by family."""
    return {fam: {n: (x + a[fam][n]) / 2 for n, x in f.items()} for fam, f in b.items()}


def deciles(xs: list[float]) -> tuple[float, float]:
    """The 10th and 90th percentiles of `xs` (inclusive method: within the spread even for three values)."""
    cuts = statistics.quantiles(xs, n=10, method="inclusive")
    return cuts[0], cuts[-1]


def write(figs: dict, evidence: dict, path: Path = HERE / "defaults.yaml") -> None:
    """defaults.yaml: each figure with the records it was read from and their spread."""
    out = {}
    for fam in FAMILIES:
        entry = {}
        for name in (*CHOSEN, "layer_overhead"):
            own, chosen = evidence.get((fam, name), []), used(evidence, fam, name)
            xs = [x for _, x in chosen]
            few = {0: f"no {fam} record", 1: f"one {fam} record"}.get(len(own), f"only {len(own)} {fam} records")
            every = "every family" if fam == "cpu" else "every family but CPUs"
            how = "median" if chosen is own else f"median over {every} ({few})"
            if name == "layer_overhead":
                entry[name] = {"value": f"{round(figs[fam][name] * 1e6):g} us",
                               "basis": f"{how} of the floors {len(xs)} batch-1 measurements imply where the floor "
                                        f"weighs (decode, time to first token, encoder latency), spread "
                                        f"{min(xs) * 1e6:.0f}-{max(xs) * 1e6:.0f} us"
                                        f"{' (the search ends at 1000 us)' if max(xs) >= FLOOR_MAX else ''}",
                               "records": sorted(i for i, _ in chosen)}
                continue
            lo, hi = deciles(xs)
            entry[name] = {"value": f"{figs[fam][name] * 100:.0f} %",
                           "basis": f"{how} of {len(xs)} published measurements, spread "
                                    f"{min(xs) * 100:.0f}-{max(xs) * 100:.0f} % "
                                    f"(10th-90th percentile {lo * 100:.0f}-{hi * 100:.0f} %)",
                           "records": sorted(i for i, _ in chosen)}
        entry["memory_reserve"] = dict(RESERVE)
        out[fam] = entry
    head = (HERE / "defaults.yaml").read_text().split("families:")[0]      # the comment above stays
    path.write_text(head + yaml.safe_dump({"families": out}, sort_keys=False, width=110))
