"""Reading the `uncertainty:` block: each range checked like the input it varies (unit, limits, currency), located
where it is wrong; the draws and the seed."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .. import schema as S
from ..checks import suggest
from ..currency import codes_in
from ..language.checker import Checker
from ..language.ranges import BOUNDS, ENTRY_KINDS, SHAPE_HELP, SHAPES
from ..language.types import Block, Leaf, MapOf, PerDevice
from ..loader import Mapping, Node, Scalar
from ..schema import Entity, Field, Value

Z95 = 1.6448536269514722          # the standard normal's 95th percentile


@dataclass(frozen=True)
class Range:
    """One uncertain input (or, with `*`, every entry's): its distribution in SI units, as written."""

    path: str                     # as written: devices.*.efficiency
    entries: str                  # devices | models | workloads
    id: str                       # an entry's id, or "*"
    field: str                    # the field path on the entry: efficiency, traffic.peak, costs.purchase
    shape: str                    # uniform | triangular | lognormal
    bounds: tuple[tuple[str, float], ...]     # (low, x), (mode, x), (high, x) / (median, x), (p95, x): SI
    texts: tuple[tuple[str, str], ...]        # the same as written ('1.5 USD/hour')
    unit: str | None
    whole: bool                   # draws of a whole-number field are rounded
    group: str                    # inputs of a group share their draws ("" alone)
    file: str
    line: int
    col: int

    def get(self, name: str) -> float:
        return dict(self.bounds)[name]

    def text(self, name: str) -> str:
        return dict(self.texts)[name]

    @property
    def kind(self) -> str:
        return ENTRY_KINDS[self.entries]

    def around(self, value: float, text: str) -> "Range":
        """A `within` range made concrete at an input's stated value: triangular from (1 − share) × value to (1 + share)
        × value, most likely the value; its bounds written in the value's own unit ('1.48 USD/hour')."""
        if self.shape != "within":
            return self
        share = self.get("within")
        number, _, unit = text.partition(" ")
        try:
            written = float(number.replace(",", ""))
        except ValueError:
            written, unit = value, ""

        def shown(k: float) -> str:
            return f"{written * k:.4g}{' ' + unit if unit else ''}"
        return replace(self, shape="triangular", bounds=(("low", value * (1 - share)), ("mode", value),
                                                         ("high", value * (1 + share))),
                       texts=(("low", shown(1 - share)), ("mode", shown(1)), ("high", shown(1 + share))))

    def quantile(self, u: np.ndarray) -> np.ndarray:
        """The inverse distribution function at u in (0, 1): draws from uniform u."""
        if self.shape == "uniform":
            x = self.get("low") + u * (self.get("high") - self.get("low"))
        elif self.shape == "triangular":
            a, c, b = self.get("low"), self.get("mode"), self.get("high")
            split = (c - a) / (b - a)
            x = np.where(u < split, a + np.sqrt(u * (b - a) * (c - a)), b - np.sqrt((1 - u) * (b - a) * (b - c)))
        else:
            mu = math.log(self.get("median"))
            sigma = (math.log(self.get("p95")) - mu) / Z95
            x = np.exp(mu + sigma * ndtri(u))
        return np.round(x) if self.whole else x

    def words(self) -> str:
        """The range as a reader reads it: 'uniform, 1.5 to 2.6 USD/hour', 'median 5 request/s, 95th percentile 9'."""
        t = dict(self.texts)
        if self.shape == "uniform":
            return f"uniform, {t['low']} to {t['high']}"
        if self.shape == "triangular":
            return f"triangular, {t['low']} to {t['high']}, most likely {t['mode']}"
        if self.shape == "within":
            return f"triangular, {t['within']} below to {t['within']} above the stated value, most likely that value"
        return f"lognormal, median {t['median']}, 95th percentile {t['p95']}"


@dataclass(frozen=True)
class Uncertainty:
    draws: int
    seed: int
    ranges: tuple[Range, ...]
    line: int
    col: int


def ndtri(u: np.ndarray) -> np.ndarray:
    """The standard normal's inverse distribution function (Acklam's rational approximation, relative error below
    1.2e-9): numpy has none, and scipy is not a dependency."""
    a = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
         -3.066479806614716e+01, 2.506628277459239e+00)
    b = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
         -1.328068155288572e+01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
         4.374664141464968e+00, 2.938163982698783e+00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
    u = np.asarray(u, dtype=float)
    low = 0.02425
    out = np.empty_like(u)
    lo, hi = u < low, u > 1 - low
    mid = ~(lo | hi)
    q = u[mid] - 0.5
    r = q * q
    out[mid] = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    for mask, sign in ((lo, 1.0), (hi, -1.0)):
        tail = u[mask] if sign > 0 else 1 - u[mask]
        q = np.sqrt(-2 * np.log(tail))
        out[mask] = sign * (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    return out


# -- reading -------------------------------------------------------------------------------------------------
def uncertainty_of(chk: Checker, node: Node | None, entries: dict[str, dict[str, Entity]],
                   kinds: dict[str, str]) -> Uncertainty | None:
    """The block, checked; `entries` by group (devices, models, workloads) and `kinds` each workload's kind."""
    if node is None:
        return None
    if not isinstance(node, Mapping):
        chk.problem(node, "uncertainty", "expected a mapping of draws, seed and inputs", "wrong-shape")
        return None
    spec = {f.name: f for f in S.UNCERTAINTY_FIELDS}
    got: dict[str, Value] = {}
    ranges: list[Range] = []
    before = len(chk.problems)
    for key, child in node.entries:
        f = spec.get(key.text)
        if f is None:
            chk.unknown(key, f"uncertainty.{key.text}", list(spec))
        elif key.text == "inputs":
            ranges = inputs_of(chk, child, entries, kinds)
        elif (v := chk.leaf(child, f, f"uncertainty.{key.text}")) is not None:
            got[key.text] = v
    chk.require(node, S.UNCERTAINTY_FIELDS, "uncertainty")
    if len(chk.problems) > before:
        return None
    draws = int(got["draws"].value) if "draws" in got else spec["draws"].default
    seed = int(got["seed"].value) if "seed" in got else spec["seed"].default
    return Uncertainty(draws, seed, tuple(ranges), node.line, node.col)


def inputs_of(chk: Checker, node: Node, entries: dict[str, dict[str, Entity]], kinds: dict[str, str]) -> list[Range]:
    if not isinstance(node, Mapping) or not node.entries:
        chk.problem(node, "uncertainty.inputs", "expected a mapping of input field paths to ranges, e.g. "
                    "{devices.h100.price: {low: 2 USD/hour, high: 3 USD/hour}}", "wrong-shape")
        return []
    out = []
    for key, child in node.entries:
        where = target(chk, key, entries, kinds)
        if where is not None:
            r = range_of(chk, key, child, *where)
            if r is not None:
                out.append(r)
    return out


def target(chk: Checker, key: Scalar, entries: dict[str, dict[str, Entity]],
           kinds: dict[str, str]) -> tuple[str, str, str, Field] | None:
    """(group, id or *, field path, field) of an input path like `devices.h100.costs.purchase`."""
    path = f"uncertainty.inputs.{key.text}"
    group, _, rest = key.text.partition(".")
    if group not in ENTRY_KINDS:
        chk.problem(key, path, f"an input path starts with devices, models or workloads, then an id (or '*') and the "
                    f"field, e.g. devices.h100.price; got '{key.text}'", "bad-input-path")
        return None
    known = entries[group]
    ids = sorted((i for i in (*known, "*") if rest.startswith(i + ".")), key=len, reverse=True)
    if not ids:
        name = rest.split(".")[0]
        chk.problem(key, path, f"unknown {ENTRY_KINDS[group]} '{name}'{suggest(name, known)}; name one of the "
                    f"scenario's {group} or '*' for every one", "unknown-reference")
        return None
    eid = ids[0]
    fpath = rest[len(eid) + 1:]
    if group == "workloads":
        fields = S.WORKLOAD_FIELDS.get(kinds.get(eid, "")) if eid != "*" else tuple(S.ALL_WORKLOAD_FIELDS.values())
    else:
        fields = S.DEVICE_FIELDS if group == "devices" else S.MODEL_FIELDS
    f = field_at(fields or (), fpath)
    if f is None or not f.type.numeric:
        numeric = numeric_paths(fields or ())
        what = f"'{fpath}' is not a field of a {ENTRY_KINDS[group]}" if f is None else \
            f"'{fpath}' is not a number an uncertainty can vary"
        chk.problem(key, path, f"{what}{suggest(fpath, numeric)}; the numeric fields are "
                    f"{', '.join(numeric[:8])}{', ...' if len(numeric) > 8 else ''}", "bad-input-path")
        return None
    return group, eid, fpath, f


def field_at(fields: tuple[Field, ...], path: str) -> Field | None:
    """The declaration of a field path (`costs.purchase`, `compute.bf16`, `devices.h100`), or None."""
    head, _, rest = path.partition(".")
    f = next((x for x in fields if x.name == head), None)
    return within(f, rest) if f is not None else None


def within(f: Field, rest: str) -> Field | None:
    t = f.type
    if isinstance(t, Block):
        return field_at(t.fields, rest) if rest else None
    if isinstance(t, PerDevice):
        return replace(f, type=t.inner) if rest else f
    if isinstance(t, MapOf):
        if not rest or (t.keys and rest not in t.keys):
            return None
        return replace(f, type=t.inner)
    return f if isinstance(t, Leaf) and not rest else None


def numeric_paths(fields: tuple[Field, ...], prefix: str = "") -> list[str]:
    out: list[str] = []
    for f in fields:
        if isinstance(f.type, Block):
            out += numeric_paths(f.type.fields, f"{prefix}{f.name}.")
        elif f.type.numeric:
            out.append(f"{prefix}{f.name}")
    return out


def range_of(chk: Checker, key: Scalar, node: Node, group: str, eid: str, fpath: str, f: Field) -> Range | None:
    path = f"uncertainty.inputs.{key.text}"
    if not isinstance(node, Mapping):
        chk.problem(node, path, f"expected a mapping: {SHAPE_HELP}", "wrong-shape")
        return None
    given = [k.text for k, _ in node.entries]
    bounds = tuple(sorted(k for k in given if k in BOUNDS))
    for k, _ in node.entries:
        if k.text not in (*BOUNDS, "group"):
            chk.unknown(k, f"{path}.{k.text}", [*BOUNDS, "group"])
            return None
    shape = SHAPES.get(bounds)
    if shape is None:
        chk.problem(node, path, f"{SHAPE_HELP}; got {{{', '.join(given)}}}", "bad-range")
        return None
    if shape == "lognormal" and f.maximum is not None:
        chk.problem(node, path, f"a lognormal range is unbounded, but {fpath} is at most "
                    f"{f.type.limit(f.maximum)}: give {{low, high}} or {{low, mode, high}}", "bad-range")
        return None
    values: dict[str, Value] = {}
    for k, child in node.entries:
        if k.text == "group":
            v = chk.leaf(child, S.Field("group", S.Slug(), "group"), f"{path}.group")
        elif k.text == "within":          # a share of each stated value, whatever the field's unit
            v = chk.leaf(child, S.Field("within", S.Fraction(), "within"), f"{path}.within")
            if v is not None and not 0 < v.value < 1:
                chk.problem(child, f"{path}.within", f"'{v.text}' must lie between 0 % and 100 % (exclusive): the "
                            "share below and above each stated value, e.g. 20 %", "bad-range")
                return None
        else:
            v = chk.leaf(child, replace(f, required=False), f"{path}.{k.text}")
            if v is not None and not in_currency(chk, v, f"{path}.{k.text}"):
                v = None
        if v is None:
            return None
        values[k.text] = v
    order = {"uniform": ("low", "high"), "triangular": ("low", "mode", "high"), "lognormal": ("median", "p95"),
             "within": ("within",)}[shape]
    xs = [values[k].value for k in order]
    if shape == "lognormal" and xs[0] <= 0:
        chk.problem(values["median"], f"{path}.median", "a lognormal range's median is greater than zero", "bad-range")
        return None
    if shape != "within" and (xs[0] >= xs[-1] or any(a > b for a, b in zip(xs, xs[1:]))):
        words = "low < high and low <= mode <= high" if shape != "lognormal" else "median < p95"
        chk.problem(node, path, f"the range is out of order: {words}; got "
                    f"{', '.join(f'{k} {values[k].text}' for k in order)}", "bad-range")
        return None
    group_name = str(values["group"].value) if "group" in values else ""
    return Range(key.text, group, eid, fpath, shape, tuple((k, float(values[k].value)) for k in order),
                 tuple((k, values[k].text) for k in order), values[order[0]].unit, bool(f.type.whole), group_name,
                 chk.file, key.line, key.col)


def in_currency(chk: Checker, v: Value, path: str) -> bool:
    """An amount is in the scenario's currency (no conversion)."""
    if v.unit is None or "USD" not in v.unit:
        return True
    other = sorted(codes_in(v.text) - {chk.currency})
    if other:
        chk.problem(v, path, f"'{v.text}' is in {', '.join(other)}, but this scenario's currency is {chk.currency} "
                    f"and no amount is converted: give it in {chk.currency}", "currency-mismatch")
        return False
    return True
