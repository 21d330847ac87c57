"""Shared by every sheet: display units and formats, input ranges, cell helpers and the Book."""

from __future__ import annotations

import math
import re
from typing import Any, Iterable

from ... import currency
from ... import formulas as F
from ... import schema as S
from ...evaluate import Input, Pair, Results
from ...formulas.common import MONTH
from ...formulas.excel import excel_number
from ...formulas.expr import constant
from ...units import split_quantity, to_unit
from xlsxwriter.utility import xl_cell_to_rowcol

from ..format import SCALES, TEXT_UNITS, Shown, numbers, plain, scale_for
from .names import (CONSTANT, ENTITY_PREFIX, MASTER, RECOMMENDATION, REQUIREMENTS_MET, UNIT, assign_names,
                    names_of, raw_name, valid_name)
from .sheet import CHECK_BAD, CHECK_OK, Align, Cell, Sheet, Validation, cached, coordinate


ENTITY_ORDER = ("device", "model", "workload", "benchmark", "decision")

# Inputs derived from a choice (precision, optimizer) take one of these values.
CHOICES = {"bytes_per_value": tuple(sorted(set(S.PRECISION_BYTES.values()))),
           "kv_bytes_per_value": tuple(sorted(set(S.PRECISION_BYTES.values()))),
           "state_bytes_per_parameter": tuple(sorted(set(S.OPTIMIZER_STATE_BYTES.values())))}
ROW = "\x01"                                 # stands for the row number in a sweep row's formula template
PALETTE = ("1F77B4", "FF7F0E", "2CA02C", "D62728", "9467BD", "8C564B", "E377C2", "7F7F7F", "BCBD22", "17BECF")
BOOLEAN = '"TRUE";"TRUE";"FALSE"'
__all__ = ["Align", "CHECK_BAD", "CHECK_OK", "Cell", "Sheet", "cached", "ENTITY_PREFIX", "MASTER", "RECOMMENDATION",
           "REQUIREMENTS_MET", "assign_names", "raw_name", "valid_name"]      # re-exported: the sheets import them here


def formula(e: F.Expr, names: dict[str, str], local: dict[str, str] | None = None,
            constants: Any = None, memo: dict | None = None) -> str:
    """'=' and the expression in Excel: a reference is a `local` cell address, else a defined name; a named
    constant its name (with `constants`); `memo` as F.to_excel's."""
    local = local or {}
    return "=" + F.to_excel(e, lambda ref: local.get(ref.key) or names[ref.key], constants=constants, memo=memo)


def inverse_integer(factor: float) -> int | None:
    """N when a factor below 1 is 1/N and not a power of ten (1/3600 reads better than 2.78E-04)."""
    if factor >= 1 or math.log10(factor).is_integer():
        return None
    inverse = 1 / factor
    return round(inverse) if abs(inverse - round(inverse)) < 1e-9 * inverse else None


# Conversions a factor column shows as 1/N, by name.
PER = {3600: constant("seconds_per_hour", 3600, "s/hour", "seconds in an hour"),
       60: constant("seconds_per_minute", 60, "s/min", "seconds in a minute"),
       86400: constant("seconds_per_day", 86400, "s/day", "seconds in a day"), 2629800: MONTH}


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
    money = shown.label.startswith("$")
    if money and 0.01 <= small:         # money: cents, or whole units for large sums (one format for the row)
        base = "#,##0" if small >= 1000 else "#,##0.00"
    elif big >= 1e12 or 0 < small < 1e-4:
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


def exact_format(value: float, percent: bool = False, money: bool = False) -> str:
    """A number format that shows an input as typed (up to six decimals), and a value typed over it with more
    (a finance reviewer typed 3.5 years and read '4', 0.125 and read '0.13'): an amount of money under 1,000 with
    cents at least and up to two more ('2.50' beside '2.25'); a percentage with one decimal and up to two more; a
    whole number under a million as General, which shows what is typed."""
    text = f"{value * 100:.12g}" if percent else repr(float(value))
    if "e" in text and not float(value).is_integer():
        return "0.000E+00"
    decimals = 0 if float(value).is_integer() else min(6, len(text.partition(".")[2]))
    if money and abs(value) < 1000:
        return "#,##0.00" + "0" * max(0, decimals - 2) + "##"[:max(0, 4 - max(2, decimals))]
    if percent:
        return "0." + "0" * max(1, decimals) + "##"[:max(0, 3 - max(1, decimals))] + "%"
    if not money and decimals == 0 and abs(value) < 1e6:
        return "General"
    if not money and 0 < decimals < 3:
        return "#,##0." + "0" * decimals + "##"[:3 - decimals]
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


def blank_shown(inp: Input) -> Shown:
    """The unit a blank cost cell takes a value in: its field's example's ('30000 USD' -> USD, '0.12 USD/kWh')."""
    f = field_of(inp)
    if isinstance(getattr(f, "type", None), S.Fraction):
        return Shown("%", 1.0, True)
    if not inp.unit or f is None or not f.example:
        return Shown("")
    unit = split_quantity(f.example)[1]
    return Shown(unit.replace("USD ", "USD"), to_unit(1.0, unit, inp.unit))


def typed_unit(inp: Input) -> tuple[float, Shown] | None:
    """The number and unit as typed, when that unit converts exactly to the input's SI value."""
    try:
        shown, unit = split_quantity(inp.value.text)
        factor = to_unit(1.0, currency.internal(unit), inp.unit) if unit else 0.0
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
    """The conditions an input's value must meet; a limit other than 0, 1 or 2 is a named constant."""
    if rule.choices:
        return [ref > 0]
    out = []
    if rule.low is not None:
        low = limit(rule.low, f"least_{ref.label}", f"the smallest {ref.label} the scenario language accepts")
        out.append(ref > low if rule.strict else ref >= low)
    if rule.high is not None:
        out.append(ref <= limit(rule.high, f"most_{ref.label}", f"the largest {ref.label} the scenario language "
                                                                "accepts"))
    return out


def limit(value: float, name: str, meaning: str) -> float | F.Const:
    return value if value in (0, 1, 2) else constant(name, value, "", meaning)


STRICT_MARGIN = 1e-9       # an efficiency of 0 % passed the cell's check and divided by zero (a finance reviewer)


def validation(rule: Rule) -> Validation | None:
    """XlsxWriter's data validation for a rule, with the message a reader sees."""
    kind = "integer" if rule.whole else "decimal"
    if rule.choices:
        listed = ",".join(excel_number(float(c)) for c in rule.choices)
        opts: dict[str, Any] = {"validate": "list", "source": listed.split(",")}
        message = f"one of {listed}"
    elif rule.high is not None:
        low = rule.low or 0.0          # 'between' takes its ends: above a strict low by the least a cell shows
        low = low + (1 if rule.whole else STRICT_MARGIN) if rule.strict else low
        opts = {"validate": kind, "criteria": "between", "minimum": low, "maximum": rule.high}
        message = (f"above {rule.low or 0:g} and at most {rule.high:g}" if rule.strict else
                   f"between {rule.low or 0:g} and {rule.high:g}") + (" (a percentage)" if rule.high == 1 else "")
    elif rule.low is not None:
        opts = {"validate": kind, "criteria": ">" if rule.strict else ">=", "value": rule.low}
        message = f"{'greater than' if rule.strict else 'at least'} {rule.low:g}"
    else:
        return None
    what = "a whole number" if rule.whole and not rule.choices else "a value"
    return Validation(opts | {"error_message": f"Expected {what} {message}.", "error_title": "Value out of range",
                              "input_message": f"Enter {what} {message}."})


# -- cells -------------------------------------------------------------------------------------
def money(decimals: int = 0) -> str:
    """A money format in the scenario's currency: '"$"#,##0', '"€"#,##0.00'."""
    return f'"{currency.symbol()}"#,##0' + ("." + "0" * decimals if decimals else "")


def put_text(ws: Sheet, row: int, col: int, text: str, style: str | None = None) -> Cell:
    """Text that stays text: never a formula, even when it starts with '=' or after an edit."""
    c = ws.cell(row, col)
    c.value, c.style, c.text = text, style or c.style, True
    return c


def put(ws: Sheet, row: int, col: int, value: Any, fmt: str | None = None, style: str | None = None,
        value_of: Any = None) -> Cell:
    """A number, or a formula with the engine's value of it (`value_of`, stored as the cached result)."""
    c = ws.cell(row, col)
    c.value, c.style, c.text = value, style or c.style, False    # over a header's text: a formula (a finance
    if fmt:                                                      # reviewer read '=FIXED(k.found_batch_saving...')
        c.fmt = fmt
    if isinstance(value, str) and value.startswith("="):
        c.cached = cached(value_of)
    return c


def header(ws: Sheet, row: int, labels: Iterable[str], col: int = 1, right: range = range(0)) -> None:
    """Bold labels; those over columns of figures (`right`) aligned with the figures."""
    for i, label in enumerate(labels):
        c = put_text(ws, row, col + i, label, "sizing header")
        if col + i in right:
            c.align = Align("right")


def widths(ws: Sheet, sizes: dict[str, float]) -> None:
    for letter, w in sizes.items():
        ws.widths[xl_cell_to_rowcol(f"{letter}1")[1] + 1] = w


def qkey(p: Pair, qid: str) -> str | None:
    return next((x.key for x in p.cells() if x.d.id == qid), None)


def by_workload(pairs: list[Pair]) -> dict[str, list[Pair]]:
    out: dict[str, list[Pair]] = {}
    for p in pairs:
        out.setdefault(p.workload, []).append(p)
    return out


# -- the book ----------------------------------------------------------------------------------
class Book:
    """The workbook being built, with the results, the defined name of every key and the engine's value
    of every key (for the cached results)."""

    def __init__(self, results: Results):
        self.r = results
        self.scn = results.scenario
        self.names = names_of(results)
        self.sheets: dict[str, Sheet] = {}
        self.defined: dict[str, str] = {}
        self.named: dict[str, Cell] = {}
        self.devices = list(self.scn.compare)
        self.dev_col = {d: 3 + i for i, d in enumerate(self.devices)}
        self.error_cell: Cell | None = None      # the Checks cell counting error values (filled last)
        self.master: Cell | None = None
        self.reconciled: list = []          # (decision, the Summary range that reconciles its money, whether it does)
        self.edited = "0"             # the formula counting the Inputs rows edited since built (inputs_sheet)
        self.found_status: list[tuple[str, str]] = []   # Summary's cells saying whether the batches sizing found
        #                                                 keep their rule, and what they say as built
        self.serving: list[str] = []        # Summary's columns for serving options (with the draws' share, if drawn)
        self.drawn: dict[tuple[str, str], tuple] = {}    # (decision, option) -> its shares' cells on Uncertainty
        self.drawn_cells: list[tuple[int, int, str, str]] = []        # Summary cells to fill from it
        self.option_names: dict[str, dict[str, str]] = {}             # decision -> option -> its name here
        self.option_cells: dict[str, list] = {}     # decision -> (option, its "meets", rank and "fails" cells)
        self.objective: dict[str, str] = {}         # decision -> what it ranks by, what it requires, its budgets
        self.constants: dict[str, F.Const] = {}         # name -> constant, for the Constants sheet
        self.units: dict[tuple[str, float], str] = {}    # (display unit, factor) -> its name
        self.notes: list[str] = []
        self.typed: dict[str, str] = {}     # a blank cost cell's key -> the cell a value is typed into
        self.env: dict[str, Any] = results.input_values()
        for p in results.pairs:         # by each quantity's key (a record's names its record, not its device)
            for x in p.cells():
                v = p.values.get(x.d.id)
                self.env[x.key] = math.nan if v is None else v

    def sheet(self, title: str) -> Sheet:
        self.sheets[title] = Sheet(title)
        return self.sheets[title]

    def fresh_name(self, key: str) -> str:
        """A valid name for `key` that no name given so far takes (parts of long formulas, fleet searches)."""
        return assign_names([key], reserved=set(self.names.values()) | set(self.defined))[key]

    def define(self, name: str, cell: Cell) -> None:
        self.defined[name] = f"='{cell.sheet}'!{coordinate(cell.row, cell.col, absolute=True)}"
        self.named[name] = cell

    def colour(self, device: str) -> str:
        i = self.devices.index(device) if device in self.devices else len(self.devices)
        return PALETTE[i % len(PALETTE)]

    def formula(self, e: F.Expr, local: dict[str, str] | None = None, memo: dict | None = None) -> str:
        return formula(e, self.names, local, self.constant, memo)

    def constant(self, c: F.Const) -> str:
        """The name of a named constant, listed on the Constants sheet."""
        self.constants[c.name] = c
        return f"{CONSTANT}.{c.name}"

    def scaled(self, ref: str, factor: float, label: str) -> str:
        """A conversion to a display unit: `x/u.ms`, the unit's size in SI base units on the Constants sheet."""
        if factor == 1:
            return ref
        key = (label, factor)
        if key not in self.units:
            plain = currency.label(label).replace("/", " per ").replace("µ", "u")       # µs: u.us
            base = re.sub(r"[^A-Za-z0-9]+", "_", plain).strip("_") or "unit"
            name, n = f"{UNIT}.{base}", 1
            while name in self.units.values():
                n += 1
                name = f"{UNIT}.{base}_{n}"
            self.units[key] = name
        return f"{ref}/{self.units[key]}"

    def factor_cell(self, factor: float) -> float | str:
        """An Inputs factor: 1/3600 as `=1/k.seconds_per_hour`, else the number."""
        n = inverse_integer(factor)
        return f"=1/{self.constant(PER[n])}" if n in PER else factor

    def value(self, e: F.Expr, env: dict[str, Any] | None = None) -> Any:
        """The engine's value of an expression over the results (and `env`, e.g. a sweep's columns)."""
        return F.evaluate(e, self.env | env if env else self.env)

    def put_formula(self, ws: Sheet, row: int, col: int, e: F.Expr, fmt: str | None = None,
                    local: dict[str, str] | None = None) -> Cell:
        """A cell holding an expression as a formula over names (or `local` addresses), with its value."""
        return put(ws, row, col, self.formula(e, local), fmt, value_of=self.value(e))

    def option_name(self, dec: Any, o: Any) -> str:
        """An option as the workbook names it: as the report does ('Instinct MI300X (batch 21), on demand'), the
        scenario's own batch beside a found one '(as stated)' without its figure (the batch is an input: an edit would
        leave the name stale); the engine's label where two would read the same (a finance reviewer read 'mi300x,
        b21' as an internal code)."""
        if dec.id not in self.option_names:
            from ...narrative.memo import table_names
            self.option_names[dec.id] = table_names(self.r, dec, figure=False)
        return self.option_names[dec.id].get(o.id, o.label)

    def cell_value(self, where: str) -> Any:
        """The cached value of a cell given as 'Sheet!C12'."""
        sheet, coord = where.split("!")
        row, col = xl_cell_to_rowcol(coord)
        c = self.sheets[sheet].cells.get((row + 1, col + 1))
        return c.cached if c is not None else None

    def master_value(self) -> bool:
        return bool(self.master.cached) if self.master is not None else True

    def title(self, wid: str) -> str:
        w = self.scn.workloads[wid]
        t = w.get("title")
        return f"{wid} ({w.get('kind')})" + (f": {t}" if t else "")


def option_value(b: Book, dec: Any, o: Any, qid: str) -> tuple[str | None, Any]:
    """The defined name of an option's quantity and its value (None when the option's pair has none)."""
    from ...decide import pair_of
    p = pair_of(b.r, dec, o)
    x = next((x for x in p.cells() if x.d.id == qid), None) if p else None
    return (b.names[x.key], p.values.get(qid)) if x else (None, None)
