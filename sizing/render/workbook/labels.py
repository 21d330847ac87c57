"""Options named live: where an option's name states what its alternative sets ('Instinct MI300X (method lora,
trainable 1 %)'), the figures come from the alternative's own input cells, so an edit renames it and the
recommendation that quotes the name follows (a finance reviewer set the LoRA share to 10 % and read 'trainable 1 %'
in the recommendation)."""

from __future__ import annotations

from typing import Any

from ... import alternatives
from ...formulas.expr import constant
from .base import put
from .sheet import Cell, Sheet

PERCENT = constant("percent", 100, "", "hundredths in a whole: a share written in %")


def live_parts(b: Any, dec: Any, o: Any) -> list[tuple[str, str]]:
    """(the figure as the name states it, the formula that reads it) for each number the option's alternative sets
    that its name states and an input cell holds: those whose formula reads as the name does at the value built."""
    w = b.scn.workloads.get(o.workload or "")
    if w is None or not w.alternative_of:
        return []
    text, out = b.option_name(dec, o), []
    for path, v in alternatives.given_by(b.scn.workloads, w).items():
        name = b.names.get(f"workload.{w.id}.{path}")
        if name is None or isinstance(v.value, bool) or not isinstance(v.value, (int, float)) or \
                (path.startswith("devices.") and path != f"devices.{o.device}"):      # another device's count
            continue
        said = path.split(".", 1)[1] if path.startswith("parallel.") else path
        phrase = f"{v.text} device" if path.startswith("devices") else f"{said.replace('_', ' ')} {v.text}"
        if text.count(phrase) != 1:
            continue
        if f"{v.value * 100:g} %" == v.text:
            reads = f'{name}*{b.constant(PERCENT)}&" %"'
        elif f"{v.value:g}" == v.text:
            reads = name
        else:
            continue
        out.append((phrase, phrase.replace(v.text, f'"&{reads}&"', 1)))
    return out


def name_formula(b: Any, dec: Any, o: Any, before: str = "") -> str | None:
    """The option's name, after the text `before`, as a formula over its alternative's input cells; None where it
    states none of them."""
    parts = live_parts(b, dec, o)
    if not parts:
        return None
    body = (before + b.option_name(dec, o)).replace('"', '""')
    for phrase, reads in parts:
        body = body.replace(phrase.replace('"', '""'), reads, 1)
    return f'="{body}"'


def put_name(b: Any, ws: Sheet, row: int, col: int, dec: Any, o: Any, style: str | None = None) -> Cell:
    """An option's name in a cell: live where it states its alternative's inputs, else its text."""
    text, live = b.option_name(dec, o), name_formula(b, dec, o)
    c = put(ws, row, col, live or text, style=style, value_of=text)
    c.text = live is None                   # a header's text cell made a formula
    return c
