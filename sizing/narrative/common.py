"""Shared by the sentences: labels, engine values formatted, the scenario's words."""

from __future__ import annotations

import re

from .. import formulas as F
from ..evaluate import Pair, Results
from ..formulas.graph import QuantityDef
from ..render.format import human
from ..results import Decision


REQUIRE_WORDS = {"fits_memory": "fit in memory", "fits": "fit in memory", "meets_targets": "meet the latency targets",
                 "cloud": "can be had in the cloud", "on-prem": "can be had on premises",
                 "edge": "can run at the edge"}


def label(qid: str, kind: str | None = None) -> str:
    """What a reader calls a quantity; pass the workload kind where ids are shared (train's `fits`)."""
    if qid.startswith("speedup_vs_"):
        return f"Speed-up vs {qid.removeprefix('speedup_vs_')}"
    d = F.definition(qid, kind)
    return d.label if d and d.label else qid.replace("_", " ").capitalize()


def defs(pairs: list[Pair]) -> dict[str, QuantityDef]:
    """Every quantity present in any of the pairs, in definition order (comparisons last)."""
    out: dict[str, QuantityDef] = {}
    for stage in ("planned", "compared"):
        for p in pairs:
            for x in getattr(p, stage):
                if not isinstance(x.expr, F.Missing):
                    out.setdefault(x.d.id, x.d)
    return out


def show(p: Pair | None, qid: str, d: QuantityDef | None = None) -> str:
    """An engine value, formatted for a person; an en dash where the quantity does not apply."""
    if p is None or qid not in p.values:
        return "–"
    d = d or next(x.d for x in p.present() if x.d.id == qid)
    return human(p.values[qid], d.unit, d.display)


def figure(text: str) -> float:
    """The number a figure's text shows: '$2.50/hour' 2.5, '1,234.5 h' 1234.5."""
    return float(number(text).replace(",", ""))


def number(text: str) -> str:
    """The figure of a formatted amount as written: '€1,876.73/month' -> '1,876.73'."""
    return re.search(r"\d[\d,]*(?:\.\d+)?", text).group(0)


def shown_gap(a: float, b: float, unit: str, display: str | None = None) -> str:
    """|a − b| of two amounts of money as the difference of the figures shown, so a reader's subtraction checks:
    $8,109 − $4,562 reads '$3,547' (the unrounded gap would read '$3,546')."""
    x, y = human(a, unit, display), human(b, unit, display)
    same = re.sub(r"[\d,.]+", "", x) == re.sub(r"[\d,.]+", "", y)
    if "USD" not in unit or not same or "e" in x + y or not figure(x):
        return human(abs(a - b), unit, display)
    decimals = max(len(number(t).partition(".")[2]) for t in (x, y))
    gap = round(abs(figure(x) - figure(y)), decimals)
    scale = a / figure(human(a, unit, display, digits=15, cents=False))          # display -> engine unit
    significant = len(f"{gap:.{decimals}f}".replace(".", "").lstrip("0")) or 1
    return human(gap * scale, unit, display, digits=significant, cents=decimals == 2)


def rate(p: Pair, qid: str) -> str:
    """A rate a sentence multiplies, to five significant digits (not rounded to cents), so the product checks."""
    d = next(x.d for x in p.present() if x.d.id == qid)
    return human(p.values[qid], d.unit, d.display, digits=5, cents=False)


def used_keys(pairs: list[Pair]) -> set[str]:
    """Keys every present formula of the pairs reads."""
    return {ref.key for p in pairs for x in p.present() for ref in F.refs(x.expr)}


def held_against(r: Results, p: Pair, check: str) -> tuple[float, float | None, str, str] | None:
    """A memory check's need and capacity for a pair: (need, capacity, need text, capacity text), from the
    quantities its definition compares; a capacity that is not a quantity is the device's `memory` input."""
    d = F.definition(check, p.kind)
    if d is None or d.compares is None or not isinstance(p.values.get(d.compares[0]), float):
        return None
    need, cap = d.compares
    if cap in p.values:
        return p.values[need], p.values[cap], show(p, need), show(p, cap)
    i = r.inputs.get(f"device.{p.device}.{cap}")
    return p.values[need], (i.value.value if i else None), show(p, need), (i.value.text if i else "–")


def input_text(r: Results, key: str) -> str | None:
    i = r.inputs.get(key)
    return i.value.text if i else None


def pairs_of(r: Results, wid: str) -> list[Pair]:
    """A workload's pairs as the report shows them: a batch sizing found on the devices it was found for only."""
    w = r.scenario.workloads.get(wid)
    found = w.found if w is not None else ()
    return [p for p in r.pairs if p.workload == wid and (not found or p.device in found)]


def workload_ids(r: Results) -> list[str]:
    return list(dict.fromkeys(p.workload for p in r.pairs))


def catalog_id(d) -> str:
    """The catalog entry a scenario device starts from (`from:`), read from its figures' sources."""
    for v in d.values.values():
        if (v.source or "").startswith("catalog "):
            return v.source[len("catalog "):].split(":")[0]
    return ""


def device_name(r: Results, did: str) -> str:
    d = r.scenario.devices.get(did)
    return "" if d is None else display_name(d)


def display_name(d) -> str:
    """A device (scenario or catalog entry) as a reader names it: vendor and name, 'NVIDIA H100 SXM5 80GB'."""
    return " ".join(str(x) for x in (d.get("vendor"), d.get("name")) if x)


def workload_title(r: Results, wid: str) -> str:
    w = r.scenario.workloads.get(wid)
    title = w.get("title") if w else None
    return f"{title} ({wid})" if title else wid


def objective_words(dec: Decision) -> str:
    """'monthly cost', 'number of devices in the fleet' (a count is a number of things)."""
    d = F.definition(dec.quantity)
    words = label(dec.quantity).lower()
    return f"number of {words}" if d is not None and d.count and not words.startswith("number") else words


def role_value(r: Results, p: Pair, role: str):
    """The value of the input a pair's formulas read for `role` (e.g. its redundancy), or None."""
    key = next((ref.key for x in p.present() for ref in F.refs(x.expr)
                if ref.key in r.inputs and r.inputs[ref.key].role == role), None)
    return r.inputs[key].value.value if key else None


def share(part, whole) -> float | None:
    return part / whole if isinstance(part, float) and isinstance(whole, float) and whole > 0 else None
