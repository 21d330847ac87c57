"""The Roofline sheet: each device's roofline and the operating points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import formulas as F
from ... import kinds as K
from ...formulas.expr import constant
from ..format import scale_for

from .base import Book, Sheet, header, put, put_text, qkey, widths
from .sheet import Chart, Series


# -- Roofline ----------------------------------------------------------------------------------
DECADE = constant("decade", 10, "", "the roofline chart spans a decade below and above the intensities shown")


@dataclass(frozen=True)
class Trace:
    """A chart series: rows lo..hi of columns C (x) and D (y); a roof line or an operating point."""

    label: str
    device: str
    lo: int
    hi: int
    point: bool = False


@dataclass(frozen=True)
class Roof:
    label: str
    device: str
    peak: str        # defined names
    bandwidth: str
    ridge: str
    values: tuple[float, float, float]    # the engine's peak, bandwidth and ridge


def roofs(b: Book) -> list[Roof]:
    """One roof per device and precision used: the peak rate and the memory bandwidth."""
    out: dict[tuple[str, Any], Roof] = {}
    for p in b.r.pairs:
        bw = f"device.{p.device}.memory_bandwidth"
        peak, ridge = qkey(p, "peak_rate"), qkey(p, "ridge_point")
        if not K.get(p.kind).workload or bw not in b.r.inputs or peak is None or ridge is None:
            continue
        precision = b.scn.workloads[p.workload].get("precision")
        out.setdefault((p.device, precision), Roof(f"{p.device} {precision}", p.device, b.names[peak],
                                                   b.names[bw], b.names[ridge],
                                                   (b.env[peak], b.env[bw], b.env[ridge])))
    return list(out.values())


def operating_points(b: Book) -> list[tuple[str, str, str, str, float, float]]:
    """(label, device, intensity, attainable rate) in Excel, and their values, for each pair that has an
    intensity."""
    out = []
    for p in b.r.pairs:
        q = {x.d.id: F.Ref(x.key, x.d.id) for x in p.present()}
        if "intensity" not in q or "attainable_rate" not in q:
            continue
        out.append((f"{p.workload} on {p.device}", p.device, b.names[q["intensity"].key],
                    b.formula(q["attainable_rate"])[1:], b.env[q["intensity"].key], b.env[q["attainable_rate"].key]))
    return out


def roofline_sheet(b: Book, ws: Sheet) -> None:
    tops, points = roofs(b), operating_points(b)
    put_text(ws, 1, 1, "Roofline: attainable rate = min(peak, bandwidth x intensity), log-log", "sizing title")
    if not tops:
        put_text(ws, 3, 1, "no device has both a peak rate and a memory bandwidth here", "sizing note")
        return
    label, factor = scale_for(max(p.values.get("peak_rate") or 0 for p in b.r.pairs), "FLOP/s")
    xs = [(f"ridge point of {r.label}", r.ridge, r.values[2]) for r in tops] + \
        [(f"intensity of {name}", x, v) for name, _, x, _, v, _ in points]
    values = [v for *_, v in xs]
    low, high = min(values) / DECADE.value, max(values) * DECADE.value
    first = 7 + 3 * len(tops) + len(points) + 2        # the intensities shown, below the chart's table
    span = f"C{first}:C{first + len(xs) - 1}"
    put_text(ws, 3, 1, "lowest intensity shown")
    put(ws, 3, 2, f"=MIN({span})/{b.constant(DECADE)}", "0.000", value_of=low)
    put_text(ws, 4, 1, "highest intensity shown")
    put(ws, 4, 2, f"=MAX({span})*{b.constant(DECADE)}", "#,##0", value_of=high)
    put_text(ws, first - 1, 1, "the intensities the chart spans, a decade either side", "sizing section")
    for i, (what, name, value) in enumerate(xs):
        put_text(ws, first + i, 1, what)
        put(ws, first + i, 3, f"={name}", "#,##0.00", value_of=value)
    header(ws, 6, ["series", "point", "intensity (FLOP/byte)", f"rate ({label})"], right=range(3, 5))
    row, traces = 7, []
    for roof in tops:
        peak, bandwidth, ridge = roof.values
        corners = (("low", "$B$3", f"{roof.bandwidth}*$B$3", low, bandwidth * low),
                   ("ridge", roof.ridge, roof.peak, ridge, peak), ("high", "$B$4", roof.peak, high, peak))
        for i, corner in enumerate(corners):
            roofline_row(b, ws, row + i, roof.label, *corner, factor, label)
        traces.append(Trace(roof.label, roof.device, row, row + 2))
        row += 3
    for name, device, *point in points:
        roofline_row(b, ws, row, name, "operating point", *point, factor, label)
        traces.append(Trace(name, device, row, row, point=True))
        row += 1
    ws.charts.append(roofline_chart(b, traces, label))
    widths(ws, {"A": 34, "B": 16, "C": 22, "D": 18})


def roofline_row(b: Book, ws: Sheet, row: int, series: str, what: str, x: str, y: str, x_value: float,
                 y_value: float, factor: float, unit: str) -> None:
    put_text(ws, row, 1, series)
    put_text(ws, row, 2, what)
    put(ws, row, 3, f"={x}", "#,##0.00", value_of=x_value)
    put(ws, row, 4, "=" + b.scaled(f"({y})", factor, unit), "#,##0.000", value_of=y_value / factor)


def roofline_chart(b: Book, traces: list[Trace], label: str) -> Chart:
    ch = Chart("Roofline", "arithmetic intensity (FLOP/byte)", f"rate ({label})", "F3", (20, 11), log_x=True,
               log_y=True)
    ch.series += [Series(t.label, 3, 4, t.lo, t.hi, b.colour(t.device), t.point) for t in traces]
    return ch
