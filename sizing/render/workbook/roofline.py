"""The Roofline sheet: each device's roofline and the operating points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.chart.shapes import GraphicalProperties
from openpyxl.worksheet.worksheet import Worksheet

from ... import formulas as F
from ... import kinds as K
from ..format import scale_for

from .base import Book, header, put, put_text, qkey, scaled, widths


# -- Roofline ----------------------------------------------------------------------------------


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
                                                   b.names[bw], b.names[ridge]))
    return list(out.values())


def operating_points(b: Book) -> list[tuple[str, str, str, str]]:
    """(label, device, intensity, attainable rate) in Excel for each pair that has an intensity."""
    out = []
    for p in b.r.pairs:
        q = {x.d.id: F.Ref(x.key, x.d.id) for x in p.present()}
        if "intensity" not in q or "attainable_rate" not in q:
            continue
        out.append((f"{p.workload} on {p.device}", p.device, b.names[q["intensity"].key],
                    b.formula(q["attainable_rate"])[1:]))
    return out


def roofline_sheet(b: Book, ws: Worksheet) -> None:
    tops, points = roofs(b), operating_points(b)
    put_text(ws, 1, 1, "Roofline: attainable rate = min(peak, bandwidth x intensity), log-log", "sizing title")
    if not tops:
        put_text(ws, 3, 1, "no device has both a peak rate and a memory bandwidth here", "sizing note")
        return
    label, factor = scale_for(max(p.values.get("peak_rate") or 0 for p in b.r.pairs), "FLOP/s")
    xs = ",".join([r.ridge for r in tops] + [x for _, _, x, _ in points])
    put_text(ws, 3, 1, "lowest intensity shown")
    put(ws, 3, 2, f"=MIN({xs})/10", "0.000")
    put_text(ws, 4, 1, "highest intensity shown")
    put(ws, 4, 2, f"=MAX({xs})*10", "#,##0")
    header(ws, 6, ["series", "point", "intensity (FLOP/byte)", f"rate ({label})"], right=range(3, 5))
    row, traces = 7, []
    for roof in tops:
        corners = (("low", "$B$3", f"{roof.bandwidth}*$B$3"), ("ridge", roof.ridge, roof.peak),
                   ("high", "$B$4", roof.peak))
        for i, (what, x, y) in enumerate(corners):
            roofline_row(ws, row + i, roof.label, what, x, y, factor)
        traces.append(Trace(roof.label, roof.device, row, row + 2))
        row += 3
    for name, device, x, y in points:
        roofline_row(ws, row, name, "operating point", x, y, factor)
        traces.append(Trace(name, device, row, row, point=True))
        row += 1
    ws.add_chart(roofline_chart(b, ws, traces, label), "F3")
    widths(ws, {"A": 34, "B": 16, "C": 22, "D": 18})


def roofline_row(ws: Worksheet, row: int, label: str, what: str, x: str, y: str, factor: float) -> None:
    put_text(ws, row, 1, label)
    put_text(ws, row, 2, what)
    put(ws, row, 3, f"={x}", "#,##0.00")
    put(ws, row, 4, "=" + scaled(f"({y})", factor), "#,##0.000")


def roofline_chart(b: Book, ws: Worksheet, traces: list[Trace], label: str) -> ScatterChart:
    ch = ScatterChart()
    ch.title, ch.height, ch.width = "Roofline", 11, 20
    ch.x_axis.title, ch.y_axis.title = "arithmetic intensity (FLOP/byte)", f"rate ({label})"
    ch.x_axis.scaling.logBase = ch.y_axis.scaling.logBase = 10
    ch.x_axis.delete = ch.y_axis.delete = False
    for t in traces:
        s = Series(Reference(ws, min_col=4, min_row=t.lo, max_row=t.hi),
                   Reference(ws, min_col=3, min_row=t.lo, max_row=t.hi), title=t.label)
        paint(s, b.colour(t.device), t.point)
        ch.series.append(s)
    return ch


def paint(s: Series, colour: str, point: bool = False) -> None:
    """A line without markers, or a marker without a line, in the device's colour."""
    s.smooth = False
    if point:
        s.marker.symbol, s.marker.size = "circle", 8
        s.marker.graphicalProperties = GraphicalProperties(solidFill=colour)
        s.marker.graphicalProperties.line.solidFill = colour
        s.graphicalProperties.line.noFill = True
    else:
        s.marker.symbol = "none"
        s.graphicalProperties.line.solidFill = colour
        s.graphicalProperties.line.width = 22000     # EMU: about 1.75 pt


