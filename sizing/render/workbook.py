"""The workbook: every result a live Excel formula over named, editable input cells (openpyxl)."""

from __future__ import annotations

import io
import math
import re
import zipfile
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.chart.shapes import GraphicalProperties
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import Alignment, Border, Font, NamedStyle, PatternFill, Protection, Side
from openpyxl.utils import absolute_coordinate, get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from .. import __version__, alternatives, currency
from .. import formulas as F
from .. import kinds as K
from .. import schema as S
from ..decide import VARIANTS, checks, entity_of, holder
from ..evaluate import Input, Pair, Results, SweepResult, sweep_paths
from ..formulas.expr import all_of, excel_number
from ..output import build_datetime, write_atomic
from ..results import Decision, Option
from ..scenario import sha256
from ..units import split_quantity, to_unit
from .format import FIXED, PINNED, SCALES, TEXT_UNITS, scale_for

MASTER = "master_check"
REQUIREMENTS_MET = "requirements_met"
RECOMMENDATION = "decision.recommendation"
ENTITY_PREFIX = {"device": "dev", "model": "model", "workload": "wl", "benchmark": "rec"}
ENTITY_ORDER = ("device", "model", "workload", "benchmark", "decision")

# Inputs derived from a choice (precision, optimizer) take one of these values.
CHOICES = {"bytes_per_value": tuple(sorted(set(S.PRECISION_BYTES.values()))),
           "kv_bytes_per_value": tuple(sorted(set(S.PRECISION_BYTES.values()))),
           "state_bytes_per_parameter": tuple(sorted(set(S.OPTIMIZER_STATE_BYTES.values())))}
ROW = "\x01"
BOOLEAN = '"TRUE";"TRUE";"FALSE"'            # stands for the row number in a sweep row's formula template

INPUT_FILL, CHECK_OK, CHECK_BAD = "FFF2CC", "C6EFCE", "FFC7CE"
THIN = Side(style="thin", color="BFBFBF")
STYLES = (
    NamedStyle("sizing input", font=Font(color="0000FF"), fill=PatternFill("solid", fgColor=INPUT_FILL),
               border=Border(THIN, THIN, THIN, THIN), protection=Protection(locked=False)),
    NamedStyle("sizing header", font=Font(bold=True), fill=PatternFill("solid", fgColor="D9E1F2"),
               border=Border(bottom=THIN)),
    NamedStyle("sizing title", font=Font(bold=True, size=14)),
    NamedStyle("sizing section", font=Font(bold=True, size=12)),
    NamedStyle("sizing note", font=Font(italic=True, color="595959")),
)


# -- defined names --------------------------------------------------------------------------
CELL_LIKE = re.compile(r"[A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc][0-9]*|[RrCc]")
NAME_CHARS = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def valid_name(s: str) -> bool:
    """An Excel defined name: letters, digits, _ and ., not a cell reference, not a boolean."""
    return (len(s) <= 255 and NAME_CHARS.fullmatch(s) is not None and CELL_LIKE.fullmatch(s) is None
            and s.upper() not in ("TRUE", "FALSE"))


def raw_name(key: str) -> str:
    """`device.h100.price` -> `dev.h100.price`; `chat/h100/step_time` -> `chat.h100.step_time`."""
    if "/" in key:
        text = key.replace("/", ".")
    else:
        kind, rest = key.split(".", 1)
        text = f"{ENTITY_PREFIX.get(kind, kind)}.{rest}"
    text = re.sub(r"[^A-Za-z0-9_.]", "_", text)
    return text if re.match(r"[A-Za-z_]", text) else "_" + text


def assign_names(keys: Iterable[str], reserved: Iterable[str] = ()) -> dict[str, str]:
    """A valid name per key, unique ignoring case (a suffix settles collisions such as a-b / a_b)."""
    used = {r.lower() for r in reserved}
    out = {}
    for key in keys:
        base = raw_name(key)[:248]
        name, n = base, 1
        while name.lower() in used or not valid_name(name):
            n += 1
            name = f"{base}_{n}"
        used.add(name.lower())
        out[key] = name
    return out


def names_of(r: Results) -> dict[str, str]:
    """The defined name of every input key and every quantity key of the results."""
    keys = list(r.inputs) + [x.key for p in r.pairs for x in p.present()]
    return assign_names(keys, reserved=(MASTER, REQUIREMENTS_MET, RECOMMENDATION))


def formula(e: F.Expr, names: dict[str, str], local: dict[str, str] | None = None) -> str:
    """'=' and the expression in Excel: a reference is a `local` cell address, else a defined name."""
    local = local or {}
    return "=" + F.to_excel(e, lambda ref: local.get(ref.key) or names[ref.key])


def inverse_integer(factor: float) -> int | None:
    """N when a factor below 1 is 1/N and not a power of ten (1/3600 reads better than 2.78E-04)."""
    if factor >= 1 or math.log10(factor).is_integer():
        return None
    inverse = 1 / factor
    return round(inverse) if abs(inverse - round(inverse)) < 1e-9 * inverse else None


def scaled(ref: str, factor: float) -> str:
    """A conversion to a display unit: `x/1E-3`, or `x*3600` when the factor is 1/3600."""
    if factor == 1:
        return ref
    n = inverse_integer(factor)
    return f"{ref}*{n}" if n else f"{ref}/{excel_number(factor)}"


def factor_cell(factor: float) -> float | str:
    n = inverse_integer(factor)
    return f"=1/{n}" if n else factor


# -- units a person reads ---------------------------------------------------------------------
@dataclass(frozen=True)
class Shown:
    """A number as a person reads it: value in `label`; value x factor is the SI value."""

    label: str
    factor: float = 1.0
    percent: bool = False


def numbers(values: Iterable) -> list[float]:
    """The finite magnitudes among values (booleans and text left out; numpy scalars welcome)."""
    out = []
    for v in map(plain, values):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out.append(abs(v))
    return out


def display_unit(values: Iterable, unit: str, display: str | None) -> Shown:
    """One display unit for a row of engine values: the one format.human picks for the smallest."""
    nums = numbers(values)
    if display == "%":
        return Shown("%", 1.0, True)
    if display in PINNED:
        return Shown(*PINNED[display])
    if unit in SCALES and nums:
        return Shown(*scale_for(min((x for x in nums if x), default=0.0), unit))
    if display in FIXED:
        return Shown(*FIXED[display])
    return Shown(TEXT_UNITS.get(unit, unit))


def number_format(values: Iterable, shown: Shown = Shown("")) -> str:
    """A number format for a row of values, the smallest with about four significant digits, and the
    unit: `#,##0.00" ms"`."""
    values = [plain(v) for v in values]
    if any(isinstance(v, bool) for v in values):
        return BOOLEAN
    nums = [x / shown.factor * (100 if shown.percent else 1) for x in numbers(values)]
    if not nums:
        return "General"
    small, big = min((x for x in nums if x), default=0.0), max(nums)
    if big >= 1e12 or 0 < small < 1e-4:
        base = "0.000E+00"
    elif all(float(x).is_integer() for x in nums) or not small:
        base = "#,##0"
    else:
        base = "#,##0." + "0" * max(1, min(6, 3 - math.floor(math.log10(small))))
    if shown.percent:
        return base.replace("#,##", "") + "%"
    label = shown.label.replace('"', "")
    if not label:
        return base
    return f'"{currency.symbol()}"{base}"{label[1:]}"' if label.startswith("$") else \
        f'{base}" {currency.label(label)}"'


def exact_format(value: float, percent: bool = False) -> str:
    """A number format that shows an input as typed (up to six decimals)."""
    text = f"{value * 100:.12g}" if percent else repr(float(value))
    if "e" in text and not float(value).is_integer():
        return "0.000E+00"
    decimals = 0 if float(value).is_integer() else min(6, len(text.partition(".")[2]))
    return ("0" if percent else "#,##0") + ("." + "0" * decimals if decimals else "") + ("%" if percent else "")




def input_shown(inp: Input) -> tuple[float, Shown]:
    """An input's value in the unit the user wrote ('3.35 TB/s' -> 3.35 TB/s), else a readable one."""
    v = inp.value.value
    if isinstance(getattr(field_of(inp), "type", None), S.Fraction):
        return v, Shown("%", 1.0, True)
    if not inp.unit:
        return v, Shown("")
    typed = typed_unit(inp)
    if typed is not None:
        return typed
    label, factor = scale_for(v, inp.unit) if inp.unit in SCALES else (TEXT_UNITS.get(inp.unit, inp.unit), 1.0)
    return float(f"{v / factor:.12g}"), Shown(label, factor)


def typed_unit(inp: Input) -> tuple[float, Shown] | None:
    """The number and unit as typed, when that unit converts exactly to the input's SI value."""
    try:
        shown, unit = split_quantity(inp.value.text)
        factor = to_unit(1.0, unit, inp.unit) if unit else 0.0
    except Exception:       # a unit pint reads differently here: fall back to a standard display unit
        return None
    v = inp.value.value
    if factor <= 0 or abs(shown * factor - v) > 1e-9 * abs(v):
        return None
    return (int(shown) if shown.is_integer() else shown), Shown(unit.replace("USD ", "USD"), factor)


# -- input ranges: one rule gives the data validation and the sanity check --------------------
Rule = S.Limits     # the values an input may take: its field's limits, as the language declares them


def field_of(inp: Input) -> S.Field | None:
    """The scenario field an input comes from (None for values derived from a choice)."""
    ent = inp.entity
    fields = {"device": S.DEVICE_FIELDS, "model": S.MODEL_FIELDS, "benchmark": S.BENCHMARK_FIELDS,
              "decision": S.DECISION_FIELDS}.get(ent.kind)
    fields = fields if fields is not None else S.WORKLOAD_FIELDS.get(ent.get("kind"), ())
    for part in inp.path.split("."):
        f = next((f for f in fields if f.name == part), None)
        if f is None or not isinstance(f.type, S.Block):
            return f
        fields = f.type.fields
    return None


def rule_of(inp: Input) -> Rule:
    if inp.role in CHOICES:
        return Rule(choices=CHOICES[inp.role])
    f = field_of(inp)
    return Rule(low=0.0, strict=True) if f is None else f.type.validation(f)


def rule_check(rule: Rule, ref: F.Ref) -> list[F.Expr]:
    if rule.choices:
        return [ref > 0]
    out = []
    if rule.low is not None:
        out.append(ref > rule.low if rule.strict else ref >= rule.low)
    if rule.high is not None:
        out.append(ref <= rule.high)
    return out


def validation(rule: Rule) -> DataValidation | None:
    kind = "whole" if rule.whole else "decimal"
    if rule.choices:
        listed = ",".join(excel_number(float(c)) for c in rule.choices)
        dv = DataValidation(type="list", formula1=f'"{listed}"')
        message = f"one of {listed}"
    elif rule.high is not None:
        dv = DataValidation(type=kind, operator="between", formula1=excel_number(rule.low or 0.0),
                            formula2=excel_number(rule.high))
        message = f"between {rule.low or 0:g} and {rule.high:g}" + (" (a percentage)" if rule.high == 1 else "")
    elif rule.low is not None:
        dv = DataValidation(type=kind, operator="greaterThan" if rule.strict else "greaterThanOrEqual",
                            formula1=excel_number(rule.low))
        message = f"{'greater than' if rule.strict else 'at least'} {rule.low:g}"
    else:
        return None
    what = "a whole number" if rule.whole and not rule.choices else "a value"
    dv.error, dv.errorTitle, dv.showErrorMessage = f"Expected {what} {message}.", "Value out of range", True
    dv.prompt, dv.showInputMessage = f"Enter {what} {message}.", True
    return dv


# -- cells -------------------------------------------------------------------------------------
def put_text(ws: Worksheet, row: int, col: int, text: str, style: str | None = None) -> Cell:
    """Text that stays text: never a formula, even when it starts with '=' or after an edit."""
    c = ws.cell(row, col)
    if style:
        c.style = style
    c.value = text
    c.data_type = "s"
    c.quotePrefix = True
    return c


def put(ws: Worksheet, row: int, col: int, value: Any, fmt: str | None = None, style: str | None = None) -> Cell:
    c = ws.cell(row, col)
    if style:
        c.style = style
    c.value = value
    if fmt:
        c.number_format = fmt
    return c


def header(ws: Worksheet, row: int, labels: Iterable[str], col: int = 1, right: range = range(0)) -> None:
    """Bold labels; those over columns of figures (`right`) aligned with the figures."""
    for i, label in enumerate(labels):
        c = put_text(ws, row, col + i, label, "sizing header")
        if col + i in right:
            c.alignment = Alignment(horizontal="right")


def widths(ws: Worksheet, sizes: dict[str, float]) -> None:
    for letter, w in sizes.items():
        ws.column_dimensions[letter].width = w


def finish(ws: Worksheet) -> None:
    """Formulas locked, inputs editable, no password (against slips, not people); printed a page wide."""
    ws.protection.sheet = True
    ws.protection.formatColumns = False
    ws.protection.formatRows = False
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4         # the report's paper
    ws.page_setup.fitToWidth, ws.page_setup.fitToHeight = 1, 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True


def plain(v: Any) -> Any:
    """A Python scalar for a numpy one (sweep series are arrays)."""
    return v.item() if hasattr(v, "item") and not isinstance(v, (int, float, bool, str)) else v


def qkey(p: Pair, qid: str) -> str | None:
    return next((x.key for x in p.present() if x.d.id == qid), None)


def by_workload(pairs: list[Pair]) -> dict[str, list[Pair]]:
    out: dict[str, list[Pair]] = {}
    for p in pairs:
        out.setdefault(p.workload, []).append(p)
    return out


# -- the book ----------------------------------------------------------------------------------
class Book:
    """The workbook being built, with the results and the defined name of every key."""

    def __init__(self, results: Results):
        self.r = results
        self.scn = results.scenario
        self.names = names_of(results)
        self.wb = Workbook()
        self.wb.remove(self.wb.active)
        for style in STYLES:
            self.wb.add_named_style(style)
        self.devices = list(self.scn.compare)
        self.dev_col = {d: 3 + i for i, d in enumerate(self.devices)}
        self.notes: list[str] = []

    def define(self, name: str, cell: Cell) -> None:
        ref = f"{quote_sheetname(cell.parent.title)}!{absolute_coordinate(cell.coordinate)}"
        self.wb.defined_names[name] = DefinedName(name, attr_text=ref)

    def colour(self, device: str) -> str:
        i = self.devices.index(device) if device in self.devices else len(self.devices)
        return PALETTE[i % len(PALETTE)]

    def formula(self, e: F.Expr, local: dict[str, str] | None = None) -> str:
        return formula(e, self.names, local)

    def title(self, wid: str) -> str:
        w = self.scn.workloads[wid]
        t = w.get("title")
        return f"{wid} ({w.get('kind')})" + (f": {t}" if t else "")


# -- Inputs ------------------------------------------------------------------------------------
def inputs_sheet(b: Book, ws: Worksheet) -> None:
    put_text(ws, 1, 1, "Inputs: edit the yellow cells; every result follows", "sizing title")
    put_text(ws, 2, 1, "value x factor = base value (SI); formulas read the base value through its name",
             "sizing note")
    header(ws, 4, ["field", "value", "unit", "x factor", "base value", "base unit", "name", "meaning", "source"])
    row, rules = 5, {}
    groups: dict[tuple[str, str], list[Input]] = {}
    for inp in b.r.inputs.values():
        groups.setdefault((inp.entity.kind, inp.entity.id), []).append(inp)
    for _, inputs in sorted(groups.items(), key=lambda g: ENTITY_ORDER.index(g[0][0])):
        ent = inputs[0].entity
        name = ent.get("name") or ent.get("title")
        put_text(ws, row, 1, f"{ent.kind} {ent.id}" + (f": {name}" if name else ""), "sizing section")
        row += 1
        for inp in inputs:
            input_row(b, ws, row, inp, rules)
            row += 1
        row += 1
    for dv in rules.values():
        if dv is not None:
            ws.add_data_validation(dv)
    widths(ws, {"A": 26, "B": 14, "C": 11, "D": 13, "E": 16, "F": 10, "G": 30, "H": 40, "I": 48})
    for (cell,) in ws.iter_rows(min_row=5, min_col=9, max_col=9):     # long sources wrap, not run off the page
        if isinstance(cell.value, str) and len(cell.value) > SOURCE_CHARS:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
            ws.row_dimensions[cell.row].height = 13 * math.ceil(len(cell.value) / SOURCE_CHARS)
    ws.freeze_panes = "B5"
    ws.print_area = f"A1:I{row}"


SOURCE_CHARS = 52          # characters of a source per line in the Inputs sheet's last column


def input_row(b: Book, ws: Worksheet, row: int, inp: Input, rules: dict) -> None:
    value, shown = input_shown(inp)
    base = Shown("", 1.0, shown.percent)
    put_text(ws, row, 1, inp.path)
    follows = alternatives.inherited(b.r.inputs, b.r.scenario.workloads, inp.key)
    if follows:                     # an alternative's input it does not set follows the workload's cell
        put(ws, row, 2, f"={b.names[follows]}/D{row}", exact_format(value, shown.percent))
    else:
        put(ws, row, 2, value, exact_format(value, shown.percent), "sizing input")
    put_text(ws, row, 3, "" if shown.percent else currency.label(shown.label))     # "55%" needs no second "%"
    decade = math.log10(shown.factor).is_integer() and abs(math.log10(shown.factor)) >= 4
    put(ws, row, 4, factor_cell(shown.factor), "0E+00" if decade else "General")
    b.define(b.names[inp.key], put(ws, row, 5, f"=B{row}*D{row}", number_format([inp.value.value], base)))
    put_text(ws, row, 6, currency.units(inp.unit))
    put_text(ws, row, 7, b.names[inp.key])
    put_text(ws, row, 8, F.INPUTS[inp.role].description)
    put_text(ws, row, 9, f"follows {b.names[follows]}" if follows else inp.value.source)
    if follows:
        return
    rule = rule_of(inp)
    if rule not in rules:
        rules[rule] = validation(rule)
    if rules[rule] is not None:
        rules[rule].add(f"B{row}")


# -- Calc --------------------------------------------------------------------------------------
def calc_sheet(b: Book, ws: Worksheet) -> None:
    put_text(ws, 1, 1, "Calc: every quantity in SI base units, one column per device, the same formula "
                       "across the row", "sizing title")
    row = 3
    last = 3 + len(b.devices)
    for wid, pairs in by_workload(b.r.pairs).items():
        cols = block_header(b, ws, row, pairs, ["description"])
        row += 2
        for qid, d in quantity_rows(pairs).items():
            put_text(ws, row, 1, qid)
            put_text(ws, row, 2, currency.units(d.unit))
            put_text(ws, row, last, d.description).alignment = Alignment(indent=1)
            values = [p.values.get(qid) for p in pairs]
            fmt = number_format(values)
            for p in pairs:
                x = next((x for x in p.present() if x.d.id == qid), None)
                if x is not None:
                    cell = put(ws, row, cols[id(p)], b.formula(x.expr), fmt)
                    b.define(b.names[x.key], cell)
                    align_text(cell, values)
            row += 1
        row += 1
    widths(ws, {"A": 36, "B": 11, get_column_letter(last): 80})
    for c in range(3, last):
        ws.column_dimensions[get_column_letter(c)].width = 17
    ws.freeze_panes = "C3"


def block_header(b: Book, ws: Worksheet, row: int, pairs: list[Pair], extra: list[str] = ()) -> dict[int, int]:
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
        cell.alignment = Alignment(horizontal="right")


def quantity_rows(pairs: list[Pair]) -> dict[str, Any]:
    order: dict[str, Any] = {}
    for p in pairs:
        for x in p.present():
            order.setdefault(x.d.id, x.d)
    return order


# -- Checks ------------------------------------------------------------------------------------
def within(x: F.Expr) -> F.Expr:
    return all_of(x >= 0, x <= 1)


# Checks that hold exactly in floating point too (a ratio recomputed from its parts would not).
SANITY = (
    ("delivered rate <= peak rate", ("delivered_rate", "peak_rate"), lambda q: q["delivered_rate"] <= q["peak_rate"]),
    ("attainable rate <= peak rate", ("attainable_rate", "peak_rate"),
     lambda q: q["attainable_rate"] <= q["peak_rate"]),
    ("transfer share within 0..1", ("transfer_share",), lambda q: within(q["transfer_share"])),
    ("padding efficiency within 0..1", ("padding_efficiency",), lambda q: within(q["padding_efficiency"])),
    ("step time > 0", ("step_time",), lambda q: q["step_time"] > 0),
    ("total time > 0", ("total_time",), lambda q: q["total_time"] > 0),
    ("latency > 0", ("latency",), lambda q: q["latency"] > 0),
    ("duration > 0", ("duration",), lambda q: q["duration"] > 0),
)


def sanity_checks(b: Book) -> list[tuple[str, str, F.Expr]]:
    """(check, scope, expression): inputs within their ranges, rates below their peaks, shares in 0..1."""
    out = []
    groups: dict[tuple[str, str], list[F.Expr]] = {}
    for inp in b.r.inputs.values():
        if isinstance(inp.value.value, (int, float)):
            conds = rule_check(rule_of(inp), F.Ref(inp.key, inp.role))
            groups.setdefault((inp.entity.kind, inp.entity.id), []).extend(conds)
    for (kind, eid), conds in groups.items():
        if conds:
            out.append(("inputs within their ranges", f"{kind} {eid}", conds[0] if len(conds) == 1 else all_of(*conds)))
    for p in b.r.pairs:
        q = {x.d.id: F.Ref(x.key, x.d.id) for x in p.present()}
        for text, needs, check in SANITY:
            if all(n in q for n in needs):
                out.append((text, f"{p.workload} on {p.device}", check(q)))
    return out


def checks_sheet(b: Book, ws: Worksheet) -> None:
    put_text(ws, 1, 1, "Checks: TRUE is good; the master check covers the model's sanity", "sizing title")
    put_text(ws, 3, 1, "master check (model sanity)", "sizing section")
    put_text(ws, 4, 1, "requirements met (findings)", "sizing section")
    header(ws, 6, ["check", "scope", "status"])
    row = 7
    first = row
    for text, scope, e in sanity_checks(b):
        put_text(ws, row, 1, text)
        put_text(ws, row, 2, scope)
        put(ws, row, 3, b.formula(e))
        row += 1
    b.define(MASTER, put(ws, 3, 3, f"=AND(C{first}:C{row - 1})" if row > first else "=TRUE()"))
    ranges = "C3:C4" + (f" C{first}:C{row - 1}" if row > first else "")
    row += 1
    put_text(ws, row, 1, "Requirements: a FALSE here is a finding about an option, not an error of the model",
             "sizing section")
    header(ws, row + 1, ["requirement", "scope", "status"])
    row += 2
    req_first = row
    for p in b.r.pairs:
        for x in p.present():
            if x.d.requirement:
                put_text(ws, row, 1, f"{x.d.id}: {x.d.description}")
                put_text(ws, row, 2, f"{p.workload} on {p.device}")
                put(ws, row, 3, b.formula(F.Ref(x.key, x.d.id)))
                row += 1
    met = f"=AND(C{req_first}:C{row - 1})" if row > req_first else "=TRUE()"
    b.define(REQUIREMENTS_MET, put(ws, 4, 3, met))
    colour_booleans(ws, ranges + (f" C{req_first}:C{row - 1}" if row > req_first else ""))
    widths(ws, {"A": 60, "B": 36, "C": 10})
    ws.freeze_panes = "A7"


def colour_booleans(ws: Worksheet, ranges: str) -> None:
    """Green for TRUE, red for FALSE (`ranges` holds booleans only: a blank would read as FALSE)."""
    ws.conditional_formatting.add(ranges, CellIsRule(operator="equal", formula=["TRUE"],
                                                     fill=PatternFill("solid", fgColor=CHECK_OK)))
    ws.conditional_formatting.add(ranges, CellIsRule(operator="equal", formula=["FALSE"],
                                                     fill=PatternFill("solid", fgColor=CHECK_BAD)))


# -- Results -----------------------------------------------------------------------------------
def results_sheet(b: Book, ws: Worksheet) -> None:
    put_text(ws, 1, 1, "Results: the headline figures in the units a person reads, and the decision",
             "sizing title")
    row = decision_block(b, ws, 3) + 1
    last = 3 + len(b.devices)
    for pairs in by_workload(b.r.pairs).values():
        cols = block_header(b, ws, row, pairs)
        row += 2
        for qid in K.get(pairs[0].kind).headline:
            d = next((x.d for p in pairs for x in p.present() if x.d.id == qid), None)
            if d is not None:
                headline_row(b, ws, row, pairs, cols, d)
                row += 1
        row += 1
    widths(ws, {"A": 36, "B": 14})
    for c in range(3, last):
        ws.column_dimensions[get_column_letter(c)].width = 18
    ws.freeze_panes = "C2"


def headline_row(b: Book, ws: Worksheet, row: int, pairs: list[Pair], cols: dict[int, int], d: Any) -> None:
    values = [p.values.get(d.id) for p in pairs]
    shown = display_unit(values, d.unit, d.display)
    put_text(ws, row, 1, d.label or d.id)       # the name a reader uses; Calc keeps the ids
    put_text(ws, row, 2, currency.label(shown.label) if numbers(values) else "")
    fmt = number_format(values, shown)
    for p in pairs:
        key = qkey(p, d.id)
        if key is not None:
            align_text(put(ws, row, cols[id(p)], "=" + scaled(b.names[key], shown.factor), fmt), values)


def decision_block(b: Book, ws: Worksheet, row: int) -> int:
    """The live decisions, one after the other. Returns the next row."""
    if not b.r.decisions:
        put_text(ws, row, 1, "Decision", "sizing section")
        put_text(ws, row + 1, 1, "no decision: no workload computes the objective", "sizing note")
        return row + 2
    for i, dec in enumerate(b.r.decisions):
        row = one_decision(b, ws, row, dec, recommendation_name(i))
    return row


def recommendation_name(i: int) -> str:
    """The defined name of a decision's recommendation cell: the first is `decision.recommendation`."""
    return RECOMMENDATION if i == 0 else f"decision_{i + 1}.recommendation"


def one_decision(b: Book, ws: Worksheet, row: int, dec: Decision, name: str) -> int:
    """One decision: each option's objective, requirements met, rank, what it fails; the recommendation."""
    entity = entity_of(b.r, dec)
    wid, qid = dec.workload, dec.quantity
    put_text(ws, row, 1, f"Decision: {dec.title}" if dec.title else "Decision", "sizing section")
    values = [o.value for o in dec.options]
    d = F.definition(qid)
    shown = display_unit(values, d.unit if d else "", d.display if d else None)
    better = "higher" if dec.maximise else "lower"
    put_text(ws, row + 1, 1, "objective")
    put_text(ws, row + 1, 2, f"{dec.objective} of workload {wid}: {better} is better; options must meet "
                             f"{', '.join(dec.require) or 'no requirement'}"
                             f"{', within the budget' if dec.budget else ''}")
    columns = sorted(dec.options, key=lambda o: option_order(b, dec, o))
    n = len(columns)
    if not n:
        put_text(ws, row + 2, 1, f"no option: the options asked for do not price {qid}", "sizing note")
        put_text(ws, row + 3, 1, "recommendation", "sizing section")
        b.define(name, put(ws, row + 3, 3, "none: no option meets every requirement"))
        return row + 5
    header(ws, row + 2, ["", "unit"] + [o.label for o in columns], right=range(3, 3 + n))
    for k, label in enumerate((qid, "meets requirements", "eligible value", "rank", "fails")):
        put_text(ws, row + 3 + k, 1, label)
    put_text(ws, row + 3, 2, currency.label(shown.label))
    first, last = get_column_letter(3), get_column_letter(2 + n)
    eligible = f"${first}${row + 5}:${last}${row + 5}"
    fmt = number_format(values, shown)
    for k, o in enumerate(columns):
        col = 3 + k
        c = get_column_letter(col)
        p = holder(b.r, dec, o)
        key = qkey(p, o.quantity) if p else None
        if key is not None:
            put(ws, row + 3, col, "=" + scaled(b.names[key], shown.factor), fmt)
        cs = checks(b.r, entity, o.workload or wid, o.device, o.variant)
        put(ws, row + 4, col, b.formula(all_of(*[x.expr for x in cs]) if len(cs) > 1 else
                                        cs[0].expr if cs else F.Const(True)))
        put(ws, row + 5, col, f'=IF(AND({c}{row + 4},ISNUMBER({c}{row + 3})),{c}{row + 3},"")', fmt)
        order = 0 if dec.maximise else 1
        before = f"${first}${row + 5}:{c}{row + 5}"     # ties rank in column order, as the engine's stable sort
        put(ws, row + 6, col, f'=IF(ISNUMBER({c}{row + 5}),RANK({c}{row + 5},{eligible},{order})'
                              f'+COUNTIF({before},{c}{row + 5})-1,"")')
        put(ws, row + 7, col, fails_text(b, cs))
    best = "MAX" if dec.maximise else "MIN"
    labels = f"${first}${row + 2}:${last}${row + 2}"
    put_text(ws, row + 8, 1, "recommendation", "sizing section")
    rec = put(ws, row + 8, 3, f'=IF(COUNT({eligible})=0,"none: no option meets every requirement",'
                              f'INDEX({labels},MATCH({best}({eligible}),{eligible},0)))')
    rec.font = Font(bold=True)
    b.define(name, rec)
    colour_booleans(ws, f"C{row + 4}:{last}{row + 4}")
    return row + 10


def option_order(b: Book, dec: Decision, o: Option) -> tuple[int, int]:
    """Columns in the engine's order of consideration (fleets, busy hours, API), so ties rank alike."""
    wids = [dec.workload] + [w.id for w in alternatives.of(b.r.scenario.workloads, dec.workload)]
    return (VARIANTS.index(o.variant), wids.index(o.workload) if o.workload in wids else 0,
            b.devices.index(o.device) if o.device in b.devices else 0)


def fails_text(b: Book, cs: list) -> str | None:
    """A live list of the requirements failed (ids and slugs only: no user text inside a formula)."""
    terms = [f'IF({F.to_excel(x.expr, lambda ref: b.names[ref.key])},"","{x.quantity} ({x.workload}) ")'
             for x in cs]
    return f"=TRIM({'&'.join(terms)})" if terms else None


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
        words = qid.replace("_", " ") + (f" ({currency.label(shown.label)})" if shown.label and shown.label != "%" else "")
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


# -- Roofline ----------------------------------------------------------------------------------
PALETTE = ("1F77B4", "FF7F0E", "2CA02C", "D62728", "9467BD", "8C564B", "E377C2", "7F7F7F", "BCBD22", "17BECF")


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


# -- README ------------------------------------------------------------------------------------
def readme_sheet(b: Book, ws: Worksheet) -> None:
    scn, r = b.scn, b.r
    put_text(ws, 1, 1, scn.title, "sizing title")
    row = 2
    if "description" in scn.meta:
        wrap(ws, put_text(ws, row, 1, scn.meta["description"].value), README_WIDTH + 24)
        ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=2)
        row += 1
    row = readme_section(ws, row + 1, "What this workbook answers", answers(b))
    for i, dec in enumerate(r.decisions or [None]):
        several = len(r.decisions) > 1
        put_text(ws, row, 1, f"recommendation ({dec.workload})" if several else "recommendation")
        put(ws, row, 2, f"={recommendation_name(i)}" if dec else "no decision in this scenario").font = Font(bold=True)
        row += 1
    row -= 1
    put_text(ws, row + 1, 1, "master check")
    put(ws, row + 1, 2, f'=IF({MASTER},"OK: every sanity check passes","FAILED: see the Checks sheet")')
    put_text(ws, row + 2, 1, "requirements")
    put(ws, row + 2, 2, f'=IF({REQUIREMENTS_MET},"every option meets every requirement checked",'
                        '"some options fail a requirement (a finding): see Checks")')
    for name, cell in ((MASTER, f"B{row + 1}"), (REQUIREMENTS_MET, f"B{row + 2}")):
        ws.conditional_formatting.add(cell, FormulaRule(formula=[name], fill=PatternFill("solid", fgColor=CHECK_OK)))
        ws.conditional_formatting.add(cell, FormulaRule(formula=[f"NOT({name})"],
                                                        fill=PatternFill("solid", fgColor=CHECK_BAD)))
    if any(o.variant == "api" for d in r.decisions for o in d.options):
        put_text(ws, row + 3, 2, "a hosted API's latency is checked at its provider's stated service level (api: "
                                 "ttft_p95, per_token_p95); its capacity is not modelled")
        row += 1
    row = readme_section(ws, row + 4, "How to use", HOW_TO)
    row = colour_key(ws, row)
    row = readme_section(ws, row, "Provenance", provenance(b))
    row = readme_section(ws, row, "Sheets", SHEETS)
    notes = b.notes + [p.message for p in r.problems]
    if notes:
        readme_section(ws, row, "Notes", [("", n) for n in notes])
    widths(ws, {"A": 24, "B": README_WIDTH})


README_WIDTH = 100


def wrap(ws: Worksheet, cell: Cell, width: float) -> None:
    """Wrap the text and make the row tall enough (spreadsheets do not grow rows on opening)."""
    cell.alignment = Alignment(wrap_text=True, vertical="top")
    lines = sum(max(1, math.ceil(len(part) / (width * 1.15))) for part in str(cell.value).split("\n"))
    if lines > 1:
        ws.row_dimensions[cell.row].height = 15 * lines


HOW_TO = (
    ("1", "Change a yellow cell on Inputs (value in the unit shown beside it). Everything else is a formula."),
    ("2", "Calc holds one quantity per row in SI base units; Results converts the headline figures to ms, GB, "
          "tokens/s and money and ranks the options live."),
    ("3", "Checks must stay TRUE; the master check is repeated above. Requirements may be FALSE: that is a "
          "finding about an option."),
    ("4", "Every input and result has a name (Formulas > Name Manager): e.g. a formula reads "
          "dev.<device>.price or <workload>.<device>.step_time."),
    ("5", "The sheets are protected without a password to prevent slips; unprotect to restructure."),
)
SHEETS = (
    ("Inputs", "label | value | unit | factor | base value (named) | source, by device, model, workload"),
    ("Calc", "every quantity of the formula graph, one column per device"),
    ("Results", "the decision and the headline comparison in display units"),
    ("Sweep", "the scenario's sweep as a live grid with a chart"),
    ("Checks", "sanity checks (the master check) and the requirements"),
    ("Roofline", "log-log roofline: device ceilings and the workloads' operating points"),
)


def readme_section(ws: Worksheet, row: int, title: str, lines: Iterable[tuple[str, str]]) -> int:
    put_text(ws, row, 1, title, "sizing section")
    row += 1
    for label, text in lines:
        put_text(ws, row, 1, label).alignment = Alignment(vertical="top")
        wrap(ws, put_text(ws, row, 2, text), README_WIDTH)
        row += 1
    return row + 1


def answers(b: Book) -> list[tuple[str, str]]:
    r = b.r
    kinds = sorted({p.kind for p in r.pairs})
    lines = [("question", f"{len(by_workload(r.pairs))} workload(s) ({', '.join(kinds)}) evaluated on "
                          f"{len(b.devices)} device(s): {', '.join(b.devices)}")]
    for d in r.decisions:
        goal = "highest" if d.maximise else "lowest"
        req = f", among options meeting {', '.join(d.require)}" if d.require else ""
        budget = f", within the {' and '.join(d.budget)} budget" if d.budget else ""
        lines.append(("decision", f"{d.title + ': ' if d.title else ''}which option (a fleet, renting on demand, "
                                  f"a hosted API or an alternative) gives the {goal} {d.quantity} for workload "
                                  f"{d.workload}{req}{budget}"))
    return lines


def colour_key(ws: Worksheet, row: int) -> int:
    put_text(ws, row, 1, "Colour key", "sizing section")
    put_text(ws, row + 1, 1, "input", "sizing input").protection = Protection(locked=True)
    put_text(ws, row + 1, 2, "pale yellow, blue figures: an assumption you may change (the only unlocked cells)")
    put_text(ws, row + 2, 1, "calculation")
    put_text(ws, row + 2, 2, "black on white: a formula; do not overwrite")
    for i, (label, fill) in enumerate((("TRUE", CHECK_OK), ("FALSE", CHECK_BAD))):
        c = put_text(ws, row + 3 + i, 1, label)
        c.fill = PatternFill("solid", fgColor=fill)
    put_text(ws, row + 3, 2, "a check that holds")
    put_text(ws, row + 4, 2, "a check that fails (sanity) or an option that misses a requirement (finding)")
    return row + 6


def provenance(b: Book) -> list[tuple[str, str]]:
    scn = b.scn
    lines = [("tool", f"sizing {__version__}"), ("scenario file", Path(scn.file).name),
             ("SHA-256", sha256(scn.data)), ("built", build_datetime(scn).strftime("%Y-%m-%d %H:%M:%S"))]
    lines += [(k, scn.meta[k].value) for k in ("name", "owner", "date", "status") if k in scn.meta]
    return lines


# -- writing -----------------------------------------------------------------------------------
def build(results: Results) -> Workbook:
    """The workbook for an evaluation: sheets in reading order, filled so that names exist when used."""
    b = Book(results)
    sheets = {t: b.wb.create_sheet(t) for t in ("README", "Inputs", "Calc", "Results", "Sweep", "Checks", "Roofline")}
    inputs_sheet(b, sheets["Inputs"])
    calc_sheet(b, sheets["Calc"])
    checks_sheet(b, sheets["Checks"])
    results_sheet(b, sheets["Results"])
    sweep_sheet(b, sheets["Sweep"])
    roofline_sheet(b, sheets["Roofline"])
    readme_sheet(b, sheets["README"])
    for ws in sheets.values():
        finish(ws)
    when = build_datetime(results.scenario)
    props = b.wb.properties
    props.creator, props.title = f"sizing {__version__}", results.scenario.title
    props.created = props.modified = when
    return b.wb


CORE_MODIFIED = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)")


def reproducible(data: bytes, when: datetime) -> bytes:
    """The same bytes for the same workbook: fixed zip entry dates and a fixed modification date."""
    stamp = max(when, datetime(1980, 1, 1)).timetuple()[:6]
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "docProps/core.xml":
                iso = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
                body = CORE_MODIFIED.sub(rb"\g<1>" + iso + rb"\g<2>", body)
            entry = zipfile.ZipInfo(info.filename, date_time=stamp)
            entry.compress_type, entry.external_attr = zipfile.ZIP_DEFLATED, info.external_attr
            dst.writestr(entry, body)
    return out.getvalue()


@currency.rendered
def workbook_bytes(results: Results) -> bytes:
    """The .xlsx file of an evaluation, byte-identical for the same scenario."""
    buf = io.BytesIO()
    build(results).save(buf)
    return reproducible(buf.getvalue(), build_datetime(results.scenario))


def write_workbook(results: Results, path: str | Path) -> None:
    """Write the workbook atomically; refuses to overwrite the scenario file."""
    write_atomic(path, workbook_bytes(results), inputs=(results.scenario.file,))
