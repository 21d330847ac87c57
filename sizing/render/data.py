"""Machine outputs of an evaluation: JSON (SI base units, a unit string per quantity) and CSV."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import __version__, currency
from ..evaluate import Pair, Results
from ..narrative.layouts import another_data
from ..scenario import sha256


def clean(v: Any) -> Any:
    """JSON-safe: non-finite floats become null."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, list):
        return [clean(x) for x in v] if any(isinstance(x, float) and not math.isfinite(x) for x in v) else v
    if isinstance(v, Mapping):                    # a sweep's series are mappings that fill in on first use
        return {k: clean(x) for k, x in v.items()}
    return v


def quantities(p: Pair) -> dict[str, dict]:
    return {x.d.id: {"value": whole(clean(p.values[x.d.id])) if x.d.count else clean(p.values[x.d.id]),
                     "unit": currency.units(x.d.unit), "description": x.d.description} for x in p.present()}


def whole(v: Any) -> Any:
    """A count as an integer (2, not 2.0); a non-integral or absent value as it is."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


@currency.rendered
def as_dict(r: Results) -> dict:
    s = r.scenario
    decisions = [decision(r, d) for d in r.decisions]          # `another` searches once per decision
    return {
        "tool": {"name": "sizing", "version": __version__},
        "scenario": {"name": s.name, "title": s.title, "file": s.file, "sha256": sha256(s.data)},
        "currency": currency.code(),
        "results": [{"workload": p.workload, "device": p.device, "kind": p.kind, **alternative(r, p.workload),
                     "quantities": quantities(p)} for p in r.pairs],
        "sweeps": [clean({"parameter": w.parameter, "workload": w.workload, "values": w.values,
                          "series": w.series,
                          "crossovers": [c.as_dict() for c in w.crossovers]}) for w in r.sweeps],
        "grids": [clean(g.as_dict()) for g in r.grids],
        "crossovers": clean([c.as_dict() for c in r.crossovers]),
        "decision": decisions[0] if decisions else None,
        "decisions": decisions,
        "uncertainty": simulation(r),
        "problems": [p.as_dict() for p in r.problems],
    }


def decision(r: Results, d) -> dict:
    """A decision for JSON, its unit in the scenario's currency, with what another batch or layout would change
    (`another`: none where nothing does better)."""
    return clean(dict(d.as_dict(), unit=currency.units(d.unit), another=another_data(r, d)))


def simulation(r: Results) -> dict | None:
    """The draws' summary: per decision and option the win and meet probabilities and the objective's and monthly
    cost's percentiles (units in the scenario's currency)."""
    sim = r.simulation
    if sim is None:
        return None
    out = sim.as_dict()
    for d in out["decisions"]:
        d["unit"] = currency.units(d["unit"])
        d["monthly_cost_unit"] = currency.units("USD/month")
    return clean(out)


def alternative(r: Results, wid: str) -> dict:
    """For an alternative's results: the workload it varies and its id (automatic: the engine added it)."""
    w = r.scenario.workloads.get(wid)
    if w is None or not w.alternative_of:
        return {}
    return {"alternative_of": w.alternative_of, "alternative": w.alternative, "automatic": w.automatic,
            **({"found_for": list(w.found)} if w.found else {})}


def to_json(r: Results) -> str:
    return json.dumps(as_dict(r), indent=2, ensure_ascii=False) + "\n"


@currency.rendered
def to_csv(r: Results) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["workload", "device", "kind", "quantity", "value", "unit"])
    for p in r.pairs:
        for x in p.present():
            v = clean(p.values[x.d.id])
            w.writerow([inert(c) for c in (p.workload, p.device, p.kind, x.d.id, "" if v is None else v,
                                           currency.units(x.d.unit))])
    return buf.getvalue()


def inert(cell: Any) -> Any:
    """A text cell a spreadsheet would read as a formula (=, +, -, @, or a tab or carriage return first: a
    benchmark record's `device: "=cmd|' /C calc'!A0"`) gets a leading apostrophe, as OWASP advises; numbers stay
    numbers."""
    return f"'{cell}" if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell
