"""The Inputs sheet (what a reviewer edits) and the Calc sheet (every quantity as a formula)."""

from __future__ import annotations

import math
from typing import Any

from ... import alternatives, currency
from ... import formulas as F
from ... import kinds as K
from ...evaluate import Input, Pair
from ...formulas.expr import nothing

from . import fleet, parts

from .base import (BOOLEAN, Align, Book, Cell, ENTITY_ORDER, Sheet, blank_shown, by_workload, exact_format, header, qkey,
                   input_shown, number_format, put, put_text, rule_of, validation, widths)
from ..format import Shown, display_unit
from .sheet import column_letter, coordinate
from .uncertainty import range_words


# -- Inputs ------------------------------------------------------------------------------------
def inputs_sheet(b: Book, ws: Sheet) -> None:
    put_text(ws, 1, 1, "Inputs: edit the yellow cells; every result follows", "sizing title")
    put_text(ws, 2, 1, "value x factor = base value (SI); formulas read the base value through its name. Every device "
                       "has the same cost cells: a blank price or purchase means not offered that way, any other "
                       "blank cost cell reads as the default its source column names", "sizing note")
    ranged = range_words(b)
    built = 11 if ranged else 10            # the value as built, then whether it was edited since
    header(ws, 4, ["field", "value", "unit", "x factor", "base value", "base unit", "name", "meaning", "source"]
           + (["uncertainty range: text from the scenario for the Uncertainty sheet; no formula reads it, and it does "
              "not follow an edited value (run sizing again)"] if ranged else []) + list(BUILT))
    for col in [10] * bool(ranged) + [built, built + 1]:
        ws.cell(4, col).align = Align(vertical="top", wrap=True)
    ws.heights[4] = 30
    row, rules = 5, {}
    groups: dict[tuple[str, str], list[Input]] = {}
    for inp in [*b.r.inputs.values(), *b.r.blanks.values()]:      # a device's blank cost cells after its figures
        groups.setdefault((inp.entity.kind, inp.entity.id), []).append(inp)
    for _, inputs in sorted(groups.items(), key=lambda g: ENTITY_ORDER.index(g[0][0])):
        ent = inputs[0].entity
        name = ent.get("name") or ent.get("title")
        title = ent.kind if ent.id == ent.kind else f"{ent.kind} {ent.id}"       # 'decision', not 'decision decision'
        put_text(ws, row, 1, title + (f": {name}" if name else ""), "sizing section")
        row += 1
        for inp in inputs:
            if input_row(b, ws, row, inp, rules):
                edited_cells(ws, row, built)
            if inp.key in ranged:
                put_text(ws, row, 10, ranged[inp.key], "sizing note")
            row += 1
        row += 1
    ws.validations += [v for v in rules.values() if v is not None]
    b.edited = f"COUNTIF(Inputs!{column_letter(built + 1)}5:{column_letter(built + 1)}{row},TRUE)"
    ws.condition(f"{column_letter(built + 1)}5:{column_letter(built + 1)}{row}", type="cell", criteria="==",
                 value="TRUE", fill=EDITED_FILL)
    widths(ws, {"A": 26, "B": 14, "C": 11, "D": 13, "E": 16, "F": 10, "G": 30, "H": 40, "I": 48}
           | ({"J": 60} if ranged else {}) | {column_letter(built): 14, column_letter(built + 1): 10})
    for cell in [c for (_, col), c in ws.cells.items() if col == 9]:     # long sources wrap, not run off the page
        if isinstance(cell.value, str) and len(cell.value) > SOURCE_CHARS:
            cell.align = Align(wrap=True, vertical="top")
            ws.heights[cell.row] = 13 * math.ceil(len(cell.value) / SOURCE_CHARS)
    ws.freeze = "B5"
    ws.print_area = f"A1:{column_letter(built + 1)}{row}"
    ws.repeat_rows = (4, 4)


# A blank cell shows what is typed into it in the format of its kind: a price with cents, a purchase in whole units.
PAGE_CHARACTERS = 105      # characters of column width an A4 landscape page prints at 100 %
BLANK_FORMATS = {"%": "0.0##%", "": "0.0#", "USD": "#,##0", "USD/hour": "#,##0.00##", "USD/month": "#,##0.00",
                 "USD/kWh": "0.00##", "W": "#,##0", "year": "General"}
SOURCE_CHARS = 52          # characters of a source per line in the Inputs sheet's last column


BUILT = ("as built: the scenario's value, for comparison", "edited since built")
EDITED_FILL = "FFEB9C"          # the input cells' yellow, darker: an edited row stands out


def edited_cells(ws: Sheet, row: int, col: int) -> None:
    """The value as built (blank where the scenario leaves it out) and whether the value cell differs from it now:
    the Summary counts the edited rows, so a reader knows the figures are no longer sizing's own."""
    typed = ws.cell(row, 2)
    if typed.value is not None:
        put(ws, row, col, typed.value, typed.fmt)
    put(ws, row, col + 1, f"=B{row}<>{column_letter(col)}{row}", BOOLEAN, value_of=False)


def input_row(b: Book, ws: Sheet, row: int, inp: Input, rules: dict) -> bool:
    """One input's row; whether its value cell is typed (not a formula following another input's cell)."""
    blank = inp.key in b.r.blanks
    value, shown = (None, blank_shown(inp)) if blank else input_shown(inp)
    base = Shown("", 1.0, shown.percent)
    put_text(ws, row, 1, inp.path)
    follows = alternatives.inherited(b.r.inputs, b.r.scenario.workloads, inp.key) or whole_servers_cell(b, inp)
    if follows:                     # an alternative's input it does not set follows the workload's cell
        put(ws, row, 2, f"={b.names[follows]}/D{row}", exact_format(value, shown.percent), value_of=value)
    elif blank:
        put(ws, row, 2, None, BLANK_FORMATS.get(shown.label, "#,##0.00####"), "sizing input")
    else:
        put(ws, row, 2, value, exact_format(value, shown.percent, currency.code() in shown.label or
                                            shown.label.startswith("$")), "sizing input")
    put_text(ws, row, 3, "share (%)" if shown.percent else currency.label(shown.label))   # 45% is 0.45, not 45
    decade = math.log10(shown.factor).is_integer() and abs(math.log10(shown.factor)) >= 4
    put(ws, row, 4, b.factor_cell(shown.factor), "0E+00" if decade else "General", value_of=shown.factor)
    product = f"B{row}*D{row}"
    if blank or (inp.role in F.COST_CELLS and not follows):
        # a blank cost cell reads as what the formulas take when the field is left out (a price or purchase: no
        # value, not offered that way), whether the scenario left it out or finance clears it
        reads = F.BLANK_READS.get(inp.role, (nothing(), ""))[0]
        product = f"IF(ISNUMBER(B{row}),{product},{b.formula(reads)[1:]})"
    if blank or (inp.role in F.COST_CELLS and not follows):      # the cell as typed: its check lets it be cleared
        b.typed[inp.key] = f"Inputs!$B${row}"
    shown_base = number_format([inp.value.value], base)
    if shown_base == "#,##0" and isinstance(inp.value.value, (int, float)) and abs(inp.value.value) < 1e6:
        shown_base = "General"         # a whole base value: a value typed over it with decimals shows them
    b.define(b.names[inp.key], put(ws, row, 5, "=" + product, shown_base, value_of=inp.value.value))
    put_text(ws, row, 6, currency.units(inp.unit))
    put_text(ws, row, 7, b.names[inp.key])
    put_text(ws, row, 8, F.INPUTS[inp.role].description)
    put_text(ws, row, 9, f"follows {b.names[follows]}" if follows else inp.value.source)
    if follows:
        return False
    rule = rule_of(inp)
    if rule not in rules:
        rules[rule] = validation(rule)
    if rules[rule] is not None:
        rules[rule].add(f"B{row}")
    return True


def whole_servers_cell(b: Book, inp: Input) -> str | None:
    """The Calc cell a whole-servers alternative's device count follows: the devices of the whole servers its run as
    written needs there (a finance reviewer set the deadline to 45 days and read '32 devices, whole servers' where
    the run needed 20, on 3 servers: the count was typed in, and went stale)."""
    ent = getattr(inp, "entity", None)
    if ent is None or not alternatives.whole_servers(ent) or not inp.path.startswith("devices."):
        return None
    p = b.r.pair(alternatives.written_run(ent.id), inp.path.removeprefix("devices."))
    key = qkey(p, "whole_domain_devices") if p is not None else None
    return key if key in b.names else None


# -- Calc --------------------------------------------------------------------------------------
def calc_sheet(b: Book, ws: Sheet) -> None:
    put_text(ws, 1, 1, "Calc: every quantity in SI base units, one column per device, the same formula "
                       "across the row; then the same in the unit a person reads it in", "sizing title")
    row = 3
    n = len(b.devices)
    shown_at = 3 + n                # the display unit, then the devices again in it, then the description
    last = shown_at + n + 1
    for wid, pairs in by_workload(b.r.pairs).items():
        cols = block_header(b, ws, row, pairs, ["shown in", *(f"{d}, shown" for d in b.devices), "description"])
        ws.cell(row + 1, shown_at).align = Align("right")
        row += 2
        for qid, d in quantity_rows(pairs).items():
            put_text(ws, row, 1, qid)
            put_text(ws, row, 2, currency.units(d.unit))
            put_text(ws, row, last, d.description).align = Align(indent=1)
            values = [p.values.get(qid) for p in pairs]
            fmt = number_format(values)
            split = {id(p): (x.key, *parts.split(b, fleet.with_blocks(b, x.expr, x.key, f"{p.workload} on {p.device}"),
                                                 x.key))
                     for p in pairs for x in p.cells() if x.d.id == qid}
            for p in pairs:
                if id(p) in split:
                    key, e, _ = split[id(p)]
                    cell = b.put_formula(ws, row, cols[id(p)], e, fmt)
                    b.define(b.names[key], cell)
                    align_text(cell, values)
            shown_row(b, ws, row, shown_at, d, [(cols[id(p)], p.values.get(qid)) for p in pairs if id(p) in split])
            row += 1
            row = part_rows(b, ws, row, qid, [(cols[i], pieces) for i, (_, _, pieces) in split.items()])
        row += 1
    ws.widths |= {1: 36, 2: 11, last: 80, shown_at: 12} | {c: 17 for c in range(3, shown_at)} | \
        {c: 15 for c in range(shown_at + 1, last)}
    ws.freeze = "C3"
    ws.repeat_columns = "A:B"
    ws.column_breaks = [shown_at, last]         # printed: the SI figures, the shown figures, the descriptions
    ws.print_scale = max(40, min(100, 100 * PAGE_CHARACTERS // (47 + 17 * n)))      # every device on a page


def shown_row(b: Book, ws: Sheet, row: int, at: int, d, cells: list[tuple[int, Any]]) -> None:
    """A number row again in the unit a person reads it in ($/hour, GB, ms, %), each cell its SI cell over the
    unit's size (a named constant): the SI columns stay the ones the formulas use."""
    values = [v for _, v in cells]
    if d.type != "number" or any(isinstance(v, (bool, str)) for v in values):
        return
    shown = display_unit(values, d.unit, d.display)
    label = "%" if shown.percent else currency.label(shown.label)
    put_text(ws, row, at, label).align = Align("right")
    money = shown.label.startswith("$")         # money in its currency's format ($1.46/hour); the rest bare
    fmt = number_format(values, shown if money else Shown("", shown.factor, shown.percent))
    if shown.percent and fmt == "General":      # blank as built (no purchase): a share once one is typed, not 0.38
        fmt = "0.0%"
    for col, v in cells:
        si = coordinate(row, col)
        put(ws, row, at + col - 2, f'=IF(ISNUMBER({si}),{b.scaled(si, shown.factor, shown.label)},"")', fmt,
            value_of=v / shown.factor if isinstance(v, (int, float)) else None)


def part_rows(b: Book, ws: Sheet, row: int, qid: str, columns: list[tuple[int, list]]) -> int:
    """The parts a long formula of the row was split into (parts.split), one row each under it."""
    for n in range(max((len(pieces) for _, pieces in columns), default=0)):
        put_text(ws, row, 1, f"{qid}, part {n + 1}").align = Align(indent=2)
        put_text(ws, row, 4 + 2 * len(b.devices), f"a piece of {qid}'s formula, in a cell of its own so that no formula "
                                              f"is longer than {parts.LIMIT} characters").align = Align(indent=1)
        for col, pieces in columns:
            if n < len(pieces):
                key, e = pieces[n]
                b.define(b.names[key], b.put_formula(ws, row, col, e, number_format([b.env[key]])))
        row += 1
    return row


def block_header(b: Book, ws: Sheet, row: int, pairs: list[Pair], extra: list[str] = ()) -> dict[int, int]:
    """A workload's title and column labels; returns the column of each pair (a record takes the first)."""
    p0 = pairs[0]
    title = b.title(p0.workload) if K.get(p0.kind).workload else \
        f"{p0.workload} (benchmark record; device as recorded: {p0.device})"
    put_text(ws, row, 1, title, "sizing section")
    cols = {id(p): b.dev_col.get(p.device, 3) for p in pairs}
    labels = {cols[id(p)]: p.device if K.get(p.kind).workload else "record" for p in pairs}
    last = 3 + len(b.devices)
    header(ws, row + 1, ["quantity", "unit"] + [labels.get(c, "") for c in range(3, last)] + list(extra),
           right=range(3, last))
    return cols


def align_text(cell: Cell, values: list) -> None:
    """Text results ('memory', 'compute') aligned with the figures around them."""
    if any(isinstance(v, str) for v in values):
        cell.align = Align("right")


def quantity_rows(pairs: list[Pair]) -> dict[str, Any]:
    order: dict[str, Any] = {}
    for p in pairs:
        for x in p.cells():
            order.setdefault(x.d.id, x.d)
    return order


