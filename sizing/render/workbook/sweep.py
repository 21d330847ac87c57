"""The Sweep sheet: live sweep rows and their charts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from ... import currency
from ... import formulas as F
from ... import kinds as K
from ...evaluate import Pair, SweepResult, sweep_paths

from .base import Book, ROW, Shown, display_unit, number_format, numbers, plain, put, put_text, qkey, scaled
from .roofline import paint


# -- Sweep -------------------------------------------------------------------------------------
CHART_ROWS = 18
CHART_COLUMNS = 13         # the chart's width in columns, for the printed area
MAX_LIVE_ROWS = 10_000      # a row is ~100 formula cells: 10,000 rows take ~20 s to write


@dataclass(frozen=True)
class Column:
    """A shown column of a sweep grid: one quantity on one device, in a display unit."""

    qid: str
    pair: Pair
    col: int
    shown: Shown

    def format(self, s: SweepResult) -> str:
        return number_format(s.series[self.pair.device][self.qid], replace(self.shown, label=""))


def sweep_sheet(b: Book, ws: Worksheet) -> None:
    put_text(ws, 1, 1, "Sweep: the scenario's sweep, one row per value (edit the yellow column)", "sizing title")
    row, width = 3, 2
    if not b.r.sweeps:
        put_text(ws, row, 1, "the scenario has no sweep", "sizing note")
    for s in b.r.sweeps:
        row, w = (static_sweep if s.parameter == "precision" else live_sweep)(b, ws, row, s)
        row, width = row + 2, max(width, w)
    ws.column_dimensions["A"].width = 14
    ws.print_area = f"A1:{get_column_letter(max(width, CHART_COLUMNS))}{row}"


def moving(p: Pair, keys: set[str]) -> list[F.Planned]:
    """The pair's quantities that change with the swept inputs, in evaluation order."""
    moved, out = set(keys), []
    for x in p.present():
        if any(r.key in moved for r in F.refs(x.expr)):
            moved.add(x.key)
            out.append(x)
    return out


def needed(p: Pair, qids: Iterable[str], keys: set[str]) -> list[F.Planned]:
    """The moving quantities that the shown ones need, in evaluation order."""
    pool = {x.key: x for x in moving(p, keys)}
    todo = [k for k in (qkey(p, q) for q in qids) if k in pool]
    need: set[str] = set()
    while todo:
        k = todo.pop()
        if k not in need:
            need.add(k)
            todo += [r.key for r in F.refs(pool[k].expr) if r.key in pool]
    return [x for x in pool.values() if x.key in need]


def grid(ws: Worksheet, row: int, s: SweepResult, pairs: list[Pair], wanted: tuple[str, ...]) -> list[Column]:
    """The header of a sweep grid at `row` (quantity, then device): columns grouped by quantity."""
    qids = [q for q in wanted if any(q in s.series[p.device] for p in pairs)]
    out, col = [], 2
    put_text(ws, row + 1, 1, s.parameter, "sizing header")
    for qid in qids:
        d = F.definition(qid)
        shown = display_unit((v for p in pairs for v in s.series[p.device].get(qid, ())), d.unit, d.display)
        unit = f" ({currency.label(shown.label)})" if shown.label and shown.label != "%" else ""
        words = qid.replace("_", " ") + unit
        label = put_text(ws, row, col, words, "sizing section")
        label.alignment = Alignment(horizontal="center", vertical="bottom", wrap_text=True)
        start = col
        for p in pairs:
            if qid in s.series[p.device]:
                put_text(ws, row + 1, col, p.device, "sizing header").alignment = Alignment(horizontal="right")
                ws.column_dimensions[get_column_letter(col)].width = 14
                out.append(Column(qid, p, col, shown))
                col += 1
        if col - 1 > start:
            ws.merge_cells(start_row=row, start_column=start, end_row=row, end_column=col - 1)
    ws.row_dimensions[row].height = 48        # room for three lines of a long quantity name
    return out


def live_sweep(b: Book, ws: Worksheet, top: int, s: SweepResult) -> tuple[int, int]:
    """A chart, then one row per swept value: display columns, then working columns in SI (row by row
    the same formulas as Calc). Returns the last row and the width of the shown part."""
    pairs = [b.r.pair(s.workload, d) for d in s.series]
    keys = {f"workload.{s.workload}.{f}" for f in sweep_paths(s.parameter)}
    put_text(ws, top, 1, f"{s.parameter} swept for {b.title(s.workload)}: live formulas", "sizing section")
    head = top + 1 + CHART_ROWS
    columns = grid(ws, head, s, pairs, K.get(pairs[0].kind).swept)
    xs = sample(b, s)
    rows = range(head + 2, head + 2 + len(xs))
    for r, x in zip(rows, xs):
        put(ws, r, 1, x, number_format([x], Shown("", 1.0, s.parameter == "utilisation")), "sizing input")
    work = max(2 + len(columns), CHART_COLUMNS) + 1
    put_text(ws, head, work, "working columns, SI base units: the quantities above need these, row by row",
             "sizing note")
    source: dict[tuple[str, str], str] = {}
    for p in pairs:
        letters = working_columns(b, ws, head + 1, work, rows, p, {c.qid for c in columns}, keys)
        source |= {(p.device, q): c for q, c in letters.items()}
        work += len(letters) + 1
    for c in columns:
        src = source[(c.pair.device, c.qid)]
        fmt = c.format(s)
        for r in rows:
            put(ws, r, c.col, "=" + scaled(f"{src}{r}", c.shown.factor), fmt)
    if len(rows) > 1 and columns:
        ws.add_chart(sweep_chart(b, ws, head, rows, columns, s), f"B{top + 1}")
    return rows.stop - 1, 1 + len(columns)


def sample(b: Book, s: SweepResult) -> list:
    """The swept values shown live: all of them, or evenly spaced ones beyond MAX_LIVE_ROWS."""
    n = len(s.values)
    if n <= MAX_LIVE_ROWS:
        return list(s.values)
    picked = sorted({round(i * (n - 1) / (MAX_LIVE_ROWS - 1)) for i in range(MAX_LIVE_ROWS)})
    b.notes.append(f"The {s.parameter} sweep of {s.workload} has {n:,} points; Sweep shows {len(picked):,} of "
                   "them, evenly spaced, as live rows.")
    return [s.values[i] for i in picked]


def working_columns(b: Book, ws: Worksheet, row: int, col: int, rows: range, p: Pair, qids: set[str],
                    keys: set[str]) -> dict[str, str]:
    """Each quantity the shown ones need, one formula per row; returns qid -> column letter.

    A quantity that does not move with the swept value reads its Calc cell by name."""
    plan = needed(p, qids, keys)
    planned = {x.key for x in plan}
    fixed = [k for k in (qkey(p, q) for q in sorted(qids)) if k is not None and k not in planned]
    letters = {x.key: get_column_letter(col + i) for i, x in enumerate(plan)}
    local = {k: f"$A{ROW}" for k in keys} | {k: f"{c}{ROW}" for k, c in letters.items()}
    columns = [(x.key, b.formula(x.expr, local)) for x in plan] + [(k, "=" + b.names[k]) for k in fixed]
    out = {}
    for i, (key, template) in enumerate(columns):
        put_text(ws, row, col + i, key, "sizing header")
        for r in rows:                  # General format: SI values, and a million cells write faster
            ws.cell(r, col + i).value = template.replace(ROW, str(r))
        ws.column_dimensions[get_column_letter(col + i)].width = 14
        out[key.rsplit("/", 1)[1]] = get_column_letter(col + i)
    return out


def sweep_chart(b: Book, ws: Worksheet, head: int, rows: range, columns: list[Column], s: SweepResult) -> ScatterChart:
    """The first shown quantity against the swept value, one line per device."""
    qid = columns[0].qid
    ch = ScatterChart()
    ch.title = f"{qid} against {s.parameter}"
    ch.height, ch.width = 8.5, 18
    ch.x_axis.title, ch.y_axis.title = s.parameter, ws.cell(head, columns[0].col).value
    ys = [v for c in columns if c.qid == qid for v in numbers(s.series[c.pair.device][qid])]
    for axis, values in ((ch.x_axis, numbers(s.values)), (ch.y_axis, ys)):
        if values and min(values) > 0 and max(values) / min(values) >= 30:     # spans decades: log scale
            axis.scaling.logBase = 10
        axis.delete, axis.number_format = False, "General"
    xs = Reference(ws, min_col=1, min_row=rows.start, max_row=rows.stop - 1)
    for c in columns:
        if c.qid == qid:
            line = Series(Reference(ws, min_col=c.col, min_row=rows.start, max_row=rows.stop - 1), xs,
                          title=c.pair.device)
            paint(line, b.colour(c.pair.device))
            ch.series.append(line)
    return ch


def static_sweep(b: Book, ws: Worksheet, top: int, s: SweepResult) -> tuple[int, int]:
    """A precision sweep changes which inputs the formulas read: the engine's values, labelled static."""
    pairs = [b.r.pair(s.workload, d) for d in s.series]
    put_text(ws, top, 1, f"{s.parameter} swept for {b.title(s.workload)}: values from the engine (not live)",
             "sizing section")
    kind = K.get(pairs[0].kind)
    columns = grid(ws, top + 1, s, pairs, kind.swept_precision or kind.swept)
    first = top + 3
    for i, x in enumerate(s.values):
        put_text(ws, first + i, 1, str(x))
    for c in columns:
        fmt = c.format(s)
        for i, v in enumerate(map(plain, s.series[c.pair.device][c.qid])):
            shown = v / c.shown.factor if isinstance(v, float) and not c.shown.percent else v
            put(ws, first + i, c.col, shown, fmt)
    b.notes.append(f"The {s.parameter} sweep on Sweep is a static table of the engine's values: another precision "
                   "changes which inputs the formulas read (rates, bytes), so it cannot be one live grid.")
    return first + len(s.values) - 1, 1 + len(columns)


