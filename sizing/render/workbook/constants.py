"""The Constants sheet: every number a formula uses that is not an input (conventions, unit sizes), named."""

from __future__ import annotations

from ... import formulas as F
from ... import currency

from .base import CONSTANT, Book, Sheet, header, put, put_text, widths


def constants_sheet(b: Book, ws: Sheet) -> None:
    """Written last: it lists what the other sheets used. Locked: these are conventions, not assumptions."""
    put_text(ws, 1, 1, "Constants: every number the formulas use that is not an input, by name", "sizing title")
    put_text(ws, 2, 1, "conventions and unit sizes; no formula holds a number other than 0, 1 or 2", "sizing note")
    header(ws, 4, ["name", "value", "unit", "meaning"], right=range(2, 3))
    row, ranges = 5, []
    for name, c in sorted(b.constants.items()):
        put_text(ws, row, 1, f"{CONSTANT}.{name}")
        put_text(ws, row, 3, currency.units(c.unit))
        put_text(ws, row, 4, F.NAMED[name][1] if name in F.NAMED else "")
        if isinstance(c.value, tuple):
            ranges.append((name, c, row))
        else:
            b.define(f"{CONSTANT}.{name}", put(ws, row, 2, c.value, "General"))
        row += 1
    for name, unit in sorted((n, key) for key, n in b.units.items()):
        label, factor = unit
        put_text(ws, row, 1, name)
        put_text(ws, row, 3, "SI base units")
        put_text(ws, row, 4, f"one {currency.label(label)} in SI base units (a display unit's size)")
        b.define(name, put(ws, row, 2, factor, "General"))
        row += 1
    for name, c, at in ranges:          # a list: one value a row, below the table
        put_text(ws, at, 2, f"rows {row + 1} to {row + len(c.value)}")
        put_text(ws, row, 1, f"{CONSTANT}.{name}", "sizing section")
        for i, v in enumerate(c.value):
            put(ws, row + 1 + i, 2, v, "General")
        b.defined[f"{CONSTANT}.{name}"] = f"='{ws.title}'!$B${row + 1}:$B${row + len(c.value)}"
        row += len(c.value) + 2
    widths(ws, {"A": 30, "B": 14, "C": 14, "D": 90})
