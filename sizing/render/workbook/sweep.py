"""The Sweep sheet: live sweep rows and their charts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

import numpy as np

from ... import currency
from ... import formulas as F
from ...evaluate import Pair, SweepResult, sweep_paths
from ...sweeps import moving

from .base import (Align, Book, ROW, Sheet, number_format, put, put_text, qkey)
from ..format import Shown, display_unit, numbers, plain
from .sheet import Chart, Series, cached, column_letter
from .sheet import FormulaColumn
from . import parts


# -- Sweep -------------------------------------------------------------------------------------
CHART_ROWS = 18
CHART_COLUMNS = 13         # the chart's width in columns, for the printed area
COLUMN_CM = 2.6           # a 14-character column, printed
PAGE_COLUMNS = 7           # sweep columns (14 characters wide) on a printed A4 landscape page beside column A
MAX_LIVE_ROWS = 10_000
LIVE_CELLS = 200_000        # formula cells on a sweep grid: about 3 s to write (the README's benchmark)


@dataclass(frozen=True)
class Column:
    """A shown column of a sweep grid: one quantity on one device, in a display unit."""

    qid: str
    pair: Pair
    col: int
    shown: Shown

    def format(self, s: SweepResult) -> str:
        return number_format(s.series[self.pair.device][self.qid], replace(self.shown, label=""))


def sweep_sheet(b: Book, ws: Sheet) -> None:
    live = any(s.parameter != "precision" for s in b.r.sweeps)
    put_text(ws, 1, 1, "Sweep: the scenario's sweep, one row per value (edit the yellow column)" if live else
             f"Sweep: the scenario's {'sweep' if b.r.sweeps else 'grid'}, values from the engine (not live: change it "
             "in the scenario)"
             if b.r.sweeps or b.r.grids else "Sweep: the scenario has no sweep or grid", "sizing title")
    row, width = 3, 2
    if not b.r.sweeps and not b.r.grids:
        put_text(ws, row, 1, "a sweep: block in the scenario adds one (see the README's scenario language)",
                 "sizing note")
    for s in b.r.sweeps:
        row, w = (static_sweep if s.parameter == "precision" else live_sweep)(b, ws, row, s)
        row, width = row + 2, max(width, w)
    for g in b.r.grids:
        row, w = grid_block(b, ws, row, g)
        row, width = row + 1, max(width, w)
    ws.widths[1] = 14
    ws.print_area = f"A1:{column_letter(max(width, CHART_COLUMNS))}{row}"
    ws.repeat_columns = "A:A"


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


def grid(ws: Sheet, row: int, s: SweepResult, pairs: list[Pair], wanted: tuple[str, ...]) -> list[Column]:
    """The header of a sweep grid at `row` (quantity, then device): columns grouped by quantity."""
    qids = [q for q in wanted if any(q in s.series[p.device] for p in pairs)]
    out, col, groups = [], 2, []
    prev = 2
    put_text(ws, row + 1, 1, s.parameter, "sizing header")
    for qid in qids:
        d = F.definition(qid)
        shown = display_unit((v for p in pairs for v in s.series[p.device].get(qid, ())), d.unit, d.display)
        unit = f" ({currency.label(shown.label)})" if shown.label and shown.label != "%" else ""
        words = qid.replace("_", " ") + unit
        label = put_text(ws, row, col, words, "sizing section")
        label.align = Align("center", "bottom", wrap=True)
        start = col
        for p in pairs:
            if qid in s.series[p.device]:
                put_text(ws, row + 1, col, p.device, "sizing header").align = Align("right")
                ws.widths[col] = 14
                out.append(Column(qid, p, col, shown))
                col += 1
        if col - 1 > start:
            ws.merge(row, start, row, col - 1)
        if col > start:
            groups.append(start)
    ws.heights[row] = 48        # room for three lines of a long quantity name
    page = 2                    # a printed page holds whole quantity groups, at most PAGE_COLUMNS columns
    for start in groups + [col]:
        if start - page > PAGE_COLUMNS:
            ws.column_breaks.append(prev)
            page = prev
        prev = start
    return out


def live_sweep(b: Book, ws: Sheet, top: int, s: SweepResult) -> tuple[int, int]:
    """A chart, then one row per swept value: display columns, then working columns in SI (row by row
    the same formulas as Calc). Returns the last row and the width of the shown part."""
    pairs = [b.r.pair(s.workload, d) for d in s.series]
    keys = {f"workload.{s.workload}.{f}" for f in sweep_paths(s.parameter)}
    put_text(ws, top, 1, f"{s.parameter} swept for {b.title(s.workload)}: live formulas", "sizing section")
    head = top + 1 + CHART_ROWS
    columns = grid(ws, head, s, pairs, s.shown)
    qids = {c.qid for c in columns}
    plans = [work_plan(p, qids, keys) for p in pairs]
    width = len(columns) + sum(len(plan) + len(fixed) + extra_columns(b, plan, keys)
                               for plan, fixed in plans)        # cells a row
    xs = sample(b, s, max(2, LIVE_CELLS // max(width, 1)))
    rows = range(head + 2, head + 2 + len(xs))
    for r, x in zip(rows, xs):
        put(ws, r, 1, x, number_format([x], Shown("", 1.0, s.parameter == "utilisation")), "sizing input")
    work = max(2 + len(columns), CHART_COLUMNS) + 1
    put_text(ws, head, work, "working columns, SI base units: the quantities above need these, row by row",
             "sizing note")
    source: dict[tuple[str, str], tuple[str, np.ndarray]] = {}
    swept = np.asarray(xs, dtype=float)
    for p, plan in zip(pairs, plans):
        letters = working_columns(b, ws, head + 1, work, rows, plan, keys, swept)
        source |= {(p.device, q): c for q, c in letters.items()}
        work += len(letters) + 1
    for c in columns:
        src, values = source[(c.pair.device, c.qid)]
        shown = values / c.shown.factor if values.dtype.kind == "f" else values
        ws.columns.append(FormulaColumn(c.col, rows.start, ["=" + b.scaled(f"{src}{r}", c.shown.factor, c.shown.label)
                                                            for r in rows], [cached(v) for v in shown], c.format(s)))
    if len(rows) > 1 and columns:
        ws.charts.append(sweep_chart(b, ws, head, rows, columns, s, f"B{top + 1}"))
    return rows.stop - 1, 1 + len(columns)


def sample(b: Book, s: SweepResult, most: int) -> list:
    """The swept values shown live: all of them, or evenly spaced ones (the first and the last among them)
    beyond `most` rows or MAX_LIVE_ROWS."""
    n, most = len(s.values), min(most, MAX_LIVE_ROWS)
    if n <= most:
        return list(s.values)
    picked = sorted({round(i * (n - 1) / (most - 1)) for i in range(most)})
    b.notes.append(f"The {s.parameter} sweep of {s.workload} has {n:,} points; Sweep shows {len(picked):,} of "
                   "them, evenly spaced, as live rows.")
    return [s.values[i] for i in picked]


def working_columns(b: Book, ws: Sheet, row: int, col: int, rows: range, work: tuple[list[F.Planned], list[str]],
                    keys: set[str], swept: np.ndarray) -> dict[str, tuple[str, np.ndarray]]:
    """Each quantity of a pair's work plan, one formula per row, with the engine's values row by row (the
    formula graph evaluated on the swept values at once); returns qid -> (column letter, values).

    A quantity that does not move with the swept value reads its Calc cell by name."""
    plan, fixed = work
    local = {k: f"$A{ROW}" for k in keys}
    env = {k: swept for k in keys}
    columns: list[tuple[str, str]] = []
    placed = [col]

    def place(key: str) -> str:         # the next working column: a long formula's parts, then the quantity
        placed[0] += 1
        return f"{column_letter(placed[0] - 1)}{ROW}"

    for x in plan:
        env[x.key] = b.value(x.expr, env)
        e, pieces = parts.split(b, x.expr, x.key, local, env, place)
        named = named_refs(b, [pe for _, pe in pieces] + [e], local)   # one operation still too long: its
        for key in named:                                                # named cells read in columns placed
            local[key] = place(key)                                      # after the parts
        columns += [(k, b.formula(pe, local)) for k, pe in pieces] + [(k, "=" + b.names[k]) for k in named]
        local[x.key] = place(x.key)
        columns.append((x.key, b.formula(e, local)))
    columns += [(k, "=" + b.names[k]) for k in fixed]
    out = {}
    for i, (key, template) in enumerate(columns):
        put_text(ws, row, col + i, key, "sizing header")
        values = np.broadcast_to(np.asarray(env[key] if key in env else b.env[key]), swept.shape)
        # General format: SI values, and a million cells write faster
        ws.columns.append(FormulaColumn(col + i, rows.start, [template.replace(ROW, str(r)) for r in rows],
                                        [cached(v) for v in values]))
        ws.widths[col + i] = 14
        out[key.rsplit("/", 1)[1]] = (column_letter(col + i), values)
    return out


def extra_columns(b: Book, plan: list[F.Planned], keys: set[str]) -> int:
    """The working columns a pair's long formulas add (their parts), counted without values."""
    local = {k: f"$A{ROW}" for k in keys} | {x.key: f"ZZZ{ROW}" for x in plan}
    count = 0
    for x in plan:
        e, pieces = parts.split(b, x.expr, x.key, local, {}, lambda k: f"ZZZ{ROW}")
        count += len(pieces) + len(named_refs(b, [pe for _, pe in pieces] + [e], local))
    return count


def named_refs(b: Book, exprs: list[F.Expr], local: dict[str, str]) -> list[str]:
    """Where a formula is still over the limit after splitting (one operation, such as the fleet search, that
    repeats its arguments): the named cells it reads, each to be read once into a working column of its own."""
    long = [e for e in exprs if len(b.formula(e, local).replace(ROW, parts.WIDEST_ROW)) - 1 > parts.LIMIT]
    return [k for k in dict.fromkeys(r.key for e in long for r in F.refs(e)) if k not in local and k in b.names]


def work_plan(p: Pair, qids: set[str], keys: set[str]) -> tuple[list[F.Planned], list[str]]:
    """The working columns of a pair: the moving quantities the shown ones need, and the keys of the shown
    ones that do not move."""
    plan = needed(p, qids, keys)
    planned = {x.key for x in plan}
    return plan, [k for k in (qkey(p, q) for q in sorted(qids)) if k is not None and k not in planned]


def sweep_chart(b: Book, ws: Sheet, head: int, rows: range, columns: list[Column], s: SweepResult,
                anchor: str) -> Chart:
    """The first shown quantity against the swept value, one line per device."""
    qid = columns[0].qid
    ys = [v for c in columns if c.qid == qid for v in numbers(s.series[c.pair.device][qid])]
    log = [bool(values) and min(values) > 0 and max(values) / min(values) >= 30     # spans decades: log scale
           for values in (numbers(s.values), ys)]
    first_page = min(ws.column_breaks, default=2 + CHART_COLUMNS) - 2         # columns beside A on the first page
    ch = Chart(f"{qid} against {s.parameter}", s.parameter, ws.cell(head, columns[0].col).value, anchor,
               (min(18, COLUMN_CM * first_page), 8.5), log_x=log[0], log_y=log[1])     # printed on one page
    ch.series += [Series(c.pair.device, 1, c.col, rows.start, rows.stop - 1, b.colour(c.pair.device))
                  for c in columns if c.qid == qid]
    return ch


def static_sweep(b: Book, ws: Sheet, top: int, s: SweepResult) -> tuple[int, int]:
    """A precision sweep changes which inputs the formulas read: the engine's values, labelled static."""
    pairs = [b.r.pair(s.workload, d) for d in s.series]
    put_text(ws, top, 1, f"{s.parameter} swept for {b.title(s.workload)}: values from the engine (not live)",
             "sizing section")
    columns = grid(ws, top + 1, s, pairs, s.shown)
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




def grid_block(b: Book, ws: Sheet, top: int, g) -> tuple[int, int]:
    """A two-field sweep: the engine's recommendation and objective in each cell, then each moving quantity per
    device, rows by the first field and columns by the second (static: each cell is a decision, and a precision
    changes which inputs the formulas read)."""
    put_text(ws, top, 1, f"{g.rows} (down) by {g.columns} (across) for {b.title(g.workload)}: values from the "
                         f"engine (not live)", "sizing section")
    row, width = top + 1, 1 + len(g.column_values)
    blocks = []
    if g.objective:
        d = F.definition(g.objective)
        shown = display_unit([v for r in g.value for v in r], d.unit, d.display)
        blocks.append(("recommended option", None, g.best, None))
        blocks.append((f"its {g.objective.replace('_', ' ')}" + (f" ({currency.label(shown.label)})" if shown.label
                                                                 else ""), None, g.value, shown))
    for qid in g.shown:
        d = F.definition(qid)
        for device, series in g.series.items():
            if qid in series:
                values = [v for r in series[qid] for v in r]
                blocks.append((f"{qid.replace('_', ' ')}, {device}", qid, series[qid],
                               display_unit(values, d.unit, d.display)))
    for title, qid, cells, shown in blocks:
        suffix = f" ({currency.label(shown.label)})" if shown and shown.label and qid and shown.label != "%" else ""
        put_text(ws, row, 1, title + suffix, "sizing header")
        for j, x in enumerate(g.column_values):
            put_text(ws, row, 2 + j, f"{g.columns} {x}", "sizing header").align = Align("right")
        fmt = number_format([v for r in cells for v in r], replace(shown, label="")) if shown else None
        for i, x in enumerate(g.row_values):
            put_text(ws, row + 1 + i, 1, str(x))
            for j, v in enumerate(cells[i]):
                if shown is None:
                    put_text(ws, row + 1 + i, 2 + j, v if v is not None else "none qualifies")
                elif isinstance(v, bool) or not isinstance(v, (int, float)):
                    put_text(ws, row + 1 + i, 2 + j, "" if v is None else str(v))
                else:
                    put(ws, row + 1 + i, 2 + j, v * 100 if shown.percent else v / shown.factor, fmt)
        row += len(g.row_values) + 2
    for j in range(len(g.column_values)):
        ws.widths[2 + j] = max(ws.widths.get(2 + j, 14), 30 if g.objective else 14)
    b.notes.append(f"The {g.rows} by {g.columns} grid on Sweep is a static table of the engine's values: each cell "
                   "is a decision taken again" + (", and another precision changes which inputs the formulas read"
                                                  if "precision" in (g.rows, g.columns) else "") + ".")
    return row, width
