"""`sizing pull`: the input cells a reviewer changed in a workbook, written back into the scenario YAML with its
comments, key order and layout kept (a ruamel.yaml round trip), after checking the workbook belongs to it."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import alternatives
from . import schema as S
from .errors import OutputError
from .evaluate import Results
from .language.types import Block, MapOf, PerDevice
from .scenario import sha256

FIELDS = {"device": S.DEVICE_FIELDS, "model": S.MODEL_FIELDS, "decision": S.DECISION_FIELDS}


@dataclass(frozen=True)
class Change:
    """One input a reviewer changed: where it goes in the YAML, its text before and after."""

    key: str                    # the input's key (device.h100.price)
    path: tuple                 # the YAML path: ("devices", "h100", "price")
    old: str
    new: str
    where: str                  # the scenario line it was given on, or how it was set (catalog, default)

    def __str__(self) -> str:
        return f"{'.'.join(map(str, self.path))}: {self.old} -> {self.new}  ({self.where})"


def changes(r: Results, workbook: str | Path) -> list[Change]:
    """The inputs whose yellow cell differs from the scenario, in the Inputs sheet's order."""
    import openpyxl

    from .render.workbook import blank_shown, input_shown, names_of

    try:
        wb = openpyxl.load_workbook(workbook)
    except Exception as e:          # not a workbook, or unreadable: the caller reports it
        raise OutputError(f"{workbook}: cannot read it as a workbook ({type(e).__name__})") from None
    check_provenance(wb, r, workbook)
    ws = wb["Inputs"]
    names = names_of(r)
    out = []
    for key, inp in [*r.inputs.items(), *r.blanks.items()]:
        if alternatives.inherited(r.inputs, r.scenario.workloads, key):
            continue                                      # follows the workload's cell
        row = defined_row(wb, names.get(key))
        if row is None:
            continue
        cell = ws.cell(row, 2).value
        old, shown = (None, blank_shown(inp)) if key in r.blanks else input_shown(inp)
        if not isinstance(cell, (int, float)) or isinstance(cell, bool) or (old is not None and same(cell, old)):
            continue
        path = yaml_path(r, inp)
        if path is None:
            raise OutputError(f"{workbook}: Inputs!B{row}: {key} was changed, but it follows from another field "
                              f"({inp.value.source}); change that field in the scenario instead")
        out.append(Change(key, path, inp.value.text or "(blank)", text_of(cell, shown), inp.value.source))
    return out


def scenario_of(workbook: str | Path) -> Path:
    """The scenario a workbook was built from: the file its README sheet names, beside the workbook."""
    import openpyxl

    try:
        ws = openpyxl.load_workbook(workbook, read_only=True)["README"]
        name = next((row[1].value for row in ws.iter_rows() if row[0].value == "scenario file"), None)
    except Exception:
        name = None
    return Path(workbook).parent / (name or Path(workbook).with_suffix(".yaml").name)


def same(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)


def check_provenance(wb, r: Results, workbook) -> None:
    """The workbook was built from this very scenario file (its SHA-256 on the README sheet)."""
    ws = wb["README"] if "README" in wb.sheetnames else None
    got = next((row[1].value for row in ws.iter_rows() if row[0].value == "SHA-256"), None) if ws else None
    want = sha256(r.scenario.data)
    if got != want:
        raise OutputError(f"{workbook}: it was not built from {r.scenario.file} as it is now (SHA-256 "
                          f"{str(got)[:12]}..., the file's {want[:12]}...); rebuild the workbook from it, or give the "
                          f"scenario it was built from")


def defined_row(wb, name: str | None) -> int | None:
    """The Inputs row of a defined name (its base-value cell)."""
    if name is None or name not in wb.defined_names:
        return None
    ref = wb.defined_names[name].attr_text           # Inputs!$E$12
    sheet, _, cell = ref.partition("!")
    if sheet.strip("'") != "Inputs":
        return None
    return int("".join(ch for ch in cell if ch.isdigit()))


def text_of(value: float, shown) -> str:
    """A cell's number as scenario text, in the unit the Inputs sheet shows it in ('3.7 USD/hour', '55 %', '64')."""
    if shown.percent:
        return f"{number(value * 100)} %"
    return f"{number(value)} {shown.label}".strip()         # the unit as typed ('USD/hour', '$ /hour', 'TB/s')


def number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(float(v))


def yaml_path(r: Results, inp) -> tuple | None:
    """Where an input is written in the scenario, or None when it is derived from another field."""
    ent, parts = inp.entity, tuple(inp.path.split("."))
    if ent.kind == "workload":
        w = ent
        fields = S.WORKLOAD_FIELDS.get(w.get("kind"), ())
        if w.alternative_of:
            if w.automatic:
                return None
            head = ("workloads", w.alternative_of, "alternatives", w.alternative)
        else:
            head = ("workloads", w.id)
    elif ent.kind == "decision":
        fields = FIELDS["decision"]
        several = len(r.scenario.decisions) > 1
        head = ("decision", r.scenario.decisions.index(ent)) if several else ("decision",)
    elif ent.kind in ("device", "model"):
        fields = FIELDS[ent.kind]
        head = (f"{ent.kind}s", ent.id)
    else:
        return None                                       # a benchmark record's file
    return head + parts if declared(fields, parts) else None


def declared(fields, parts: tuple) -> bool:
    """Whether `parts` names a field of the language (a derived input, like bytes per value, does not)."""
    f = next((x for x in fields if x.name == parts[0]), None)
    if f is None:
        return False
    t, rest = f.type, parts[1:]
    while rest and isinstance(t, (MapOf, PerDevice)):
        t, rest = getattr(t, "inner", t), rest[1:]
    if isinstance(t, Block):
        return bool(rest) and declared(t.fields, rest)
    return not rest


def apply(text: str, found: list[Change]) -> str:
    """The scenario text with each change made, comments and layout kept."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    mapping, offset = indents(text)
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=mapping, sequence=mapping + offset, offset=offset)
    doc = yaml.load(text)
    for c in found:
        node = doc
        for step in c.path[:-1]:                      # a list step is a decision's index
            child = node[step] if isinstance(node, list) else node.get(step)
            if not isinstance(child, (dict, list)):     # not written yet (a catalog value or a default)
                node[step] = child = CommentedMap()
            node = child
        node[c.path[-1]] = scalar(c.new)
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()


def indents(text: str) -> tuple[int, int]:
    """The file's mapping indentation (the smallest step, 2 where none) and how far a list's dash sits right of its
    parent key (0: `- ` under the key's first letter, 2: indented), so a rewrite keeps the file's layout."""
    import re

    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    steps = [len(ln) - len(ln.lstrip(" ")) for ln in lines if not ln.lstrip().startswith("- ")]
    mapping = min((s for s in steps if s > 0), default=2)
    for i, ln in enumerate(lines):
        dash = re.match(r"( *)- ", ln)
        if dash and i > 0:
            parent = next((p for p in reversed(lines[:i]) if p.rstrip().endswith(":")), None)
            if parent is not None:
                return mapping, max(0, len(dash.group(1)) - (len(parent) - len(parent.lstrip(" "))))
    return mapping, 0


def scalar(text: str) -> Any:
    """A number stays a number in the YAML; a quantity is plain text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text) if "e" not in text.lower() else text
    except ValueError:
        return text
