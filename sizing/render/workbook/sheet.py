"""What a sheet holds before it is written: cells with their cached values, layout, rules and charts.

The sheet modules fill these plain objects; `xlsx` writes them with XlsxWriter. Keeping the two apart
lets every sheet say what it means (a formula and the engine's value of it) without knowing the
writer's API, and lets the writer share formats between cells."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

INPUT_FILL, CHECK_OK, CHECK_BAD = "FFF2CC", "C6EFCE", "FFC7CE"
ERRORS = ("#DIV/0!", "#N/A", "#NAME?", "#NULL!", "#NUM!", "#REF!", "#VALUE!")


def has_error(values: Iterable) -> bool:
    return any(type(v) is str and v in ERRORS for v in values)


def column_letter(col: int) -> str:
    """1 -> A (columns and rows count from 1 here, as a person reads them)."""
    return xl_col_to_name(col - 1)


def coordinate(row: int, col: int, absolute: bool = False) -> str:
    return xl_rowcol_to_cell(row - 1, col - 1, absolute, absolute)


def cached(v: Any) -> Any:
    """The value a spreadsheet shows for an engine value: no value is a blank text, a division by zero
    its error, a numpy scalar a Python one."""
    if hasattr(v, "item") and not isinstance(v, (int, float, bool, str)):
        v = v.item()
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        if math.isinf(v):
            return "#DIV/0!"
    return v


@dataclass(frozen=True)
class Align:
    horizontal: str | None = None
    vertical: str | None = None
    wrap: bool = False
    indent: int = 0


@dataclass
class Cell:
    """A value (number, text or a formula starting with '=') and how it looks; `cached` is the engine's
    value of a formula, stored in the file so that readers without a calculation engine see it."""

    sheet: str
    row: int
    col: int
    value: Any = None
    fmt: str | None = None
    style: str | None = None
    cached: Any = None
    text: bool = False              # written as text whatever it starts with
    bold: bool = False
    align: Align | None = None
    fill: str | None = None
    locked: bool | None = None      # None: as the style says

    @property
    def coordinate(self) -> str:
        return coordinate(self.row, self.col)

    @property
    def is_formula(self) -> bool:
        return not self.text and isinstance(self.value, str) and self.value.startswith("=")


@dataclass
class Validation:
    """A data validation (XlsxWriter's options) and the cells it covers."""

    options: dict
    cells: list[str] = field(default_factory=list)

    def add(self, ref: str) -> None:
        self.cells.append(ref)


@dataclass(frozen=True)
class Series:
    """A chart line (or marker): rows lo..hi of column x and column y of the chart's sheet."""

    name: str
    x_col: int
    y_col: int
    lo: int
    hi: int
    colour: str
    point: bool = False


@dataclass
class Chart:
    title: str
    x_title: str
    y_title: str
    anchor: str
    size_cm: tuple[float, float]      # width, height
    series: list[Series] = field(default_factory=list)
    log_x: bool = False
    log_y: bool = False


@dataclass
class FormulaColumn:
    """Many formula cells of one column written at once (a sweep's rows): formula and cached value per row."""

    col: int
    first: int
    formulas: list[str]
    values: list
    fmt: str | None = None


@dataclass
class Sheet:
    title: str
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    columns: list[FormulaColumn] = field(default_factory=list)
    widths: dict[int, float] = field(default_factory=dict)
    heights: dict[int, float] = field(default_factory=dict)
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)
    validations: list[Validation] = field(default_factory=list)
    conditions: list[tuple[str, dict]] = field(default_factory=list)     # (ranges, XlsxWriter options but format)
    charts: list[Chart] = field(default_factory=list)
    freeze: str | None = None
    print_area: str | None = None
    repeat_rows: tuple[int, int] | None = None
    repeat_columns: str | None = None
    column_breaks: list[int] = field(default_factory=list)    # printed in groups of columns: a page starts at each
    print_scale: int = 100                                     # with column breaks: the printed size in %

    def cell(self, row: int, col: int) -> Cell:
        c = self.cells.get((row, col))
        if c is None:
            c = self.cells[(row, col)] = Cell(self.title, row, col)
        return c

    @property
    def max_row(self) -> int:
        rows = [r for r, _ in self.cells] + [c.first + len(c.formulas) - 1 for c in self.columns]
        return max(rows, default=1)

    @property
    def max_column(self) -> int:
        return max([c for _, c in self.cells] + [c.col for c in self.columns], default=1)

    def merge(self, row: int, col: int, end_row: int, end_col: int) -> None:
        self.merges.append((row, col, end_row, end_col))

    def condition(self, ranges: str, **options: Any) -> None:
        """A conditional format: `fill` is the colour when the rule holds."""
        self.conditions.append((ranges, options))
