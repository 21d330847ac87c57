"""Write the sheets with XlsxWriter: every formula with its cached value, formats shared, charts native."""

from __future__ import annotations

import io
from datetime import datetime
from typing import Any, Iterable

import xlsxwriter
from xlsxwriter.utility import xl_cell_to_rowcol
from xlsxwriter.worksheet import Worksheet

from .sheet import INPUT_FILL, Cell, Chart, Sheet

GRID = "#BFBFBF"
STYLES: dict[str | None, dict] = {
    None: {},
    "sizing input": {"font_color": "#0000FF", "bg_color": "#" + INPUT_FILL, "border": 1, "border_color": GRID,
                     "locked": False},
    "sizing header": {"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "bottom_color": GRID},
    "sizing title": {"bold": True, "font_size": 14},
    "sizing section": {"bold": True, "font_size": 12},
    "sizing note": {"italic": True, "font_color": "#595959"},
}
CM = 37.8         # pixels per centimetre at 96 dpi


class Plain(Worksheet):
    """A worksheet for formulas that use only the functions every spreadsheet has had since Excel 2007
    (tests/test_workbook_cached.py checks): XlsxWriter's search for newer functions to prefix with
    `_xlfn.` (~180 regular expressions a formula, most of the time spent writing a sweep) is skipped."""

    def _prepare_formula(self, formula: str, expand_future_functions: bool = False) -> str:
        return formula[1:] if formula.startswith("=") else formula


class Formats:
    """One XlsxWriter format per distinct look, made on first use."""

    def __init__(self, wb: xlsxwriter.Workbook):
        self.wb = wb
        self.made: dict[tuple, Any] = {}

    def of(self, c: Cell) -> Any:
        key = (c.style, c.fmt, c.text, c.bold, c.align, c.fill, c.locked)
        f = self.made.get(key)
        if f is None:
            f = self.made[key] = self.wb.add_format(self.options(c))
        return f

    @staticmethod
    def options(c: Cell) -> dict:
        opts = dict(STYLES[c.style])
        if c.fmt and c.fmt != "General":
            opts["num_format"] = c.fmt
        if c.text:
            opts["quote_prefix"] = True          # stays text even when a reader retypes it
        if c.bold:
            opts["bold"] = True
        if c.align is not None:
            a = c.align
            opts |= {k: v for k, v in (("align", a.horizontal), ("valign", a.vertical),
                                       ("text_wrap", a.wrap or None), ("indent", a.indent or None)) if v}
        if c.fill:
            opts["bg_color"], opts["pattern"] = "#" + c.fill, 1
        if c.locked is not None:
            opts["locked"] = c.locked
        return opts

    def fill(self, colour: str) -> Any:
        """A conditional format's fill (a format of its own: cells and rules store fills differently)."""
        key = ("conditional", colour)
        if key not in self.made:
            self.made[key] = self.wb.add_format({"bg_color": "#" + colour})
        return self.made[key]


def write(sheets: Iterable[Sheet], names: dict[str, str], properties: dict[str, Any],
          page: dict[str, str]) -> bytes:
    """The .xlsx bytes of the sheets; `names` maps defined names to references, `page` holds the
    header/footer texts (with XlsxWriter's &-codes)."""
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_numbers": False, "strings_to_formulas": False,
                                   "strings_to_urls": False})
    wb.set_properties(properties)
    formats = Formats(wb)
    for s in sheets:
        sheet(wb, s, formats, page)
    for name, ref in names.items():
        wb.define_name(name, ref)
    wb.close()
    return buf.getvalue()


def sheet(wb: xlsxwriter.Workbook, s: Sheet, formats: Formats, page: dict[str, str]) -> None:
    ws = wb.add_worksheet(s.title, worksheet_class=Plain)
    merged = {(r, c): (r2, c2) for r, c, r2, c2 in s.merges}
    for (row, col), c in sorted(s.cells.items()):
        f = formats.of(c)
        if (row, col) in merged:
            r2, c2 = merged[(row, col)]
            ws.merge_range(row - 1, col - 1, r2 - 1, c2 - 1, "", f)
        put(ws, c, f)
    for column in s.columns:
        f = formats.of(Cell(s.title, 0, 0, fmt=column.fmt)) if column.fmt else None
        for i, (text, value) in enumerate(zip(column.formulas, column.values)):
            ws.write_formula(column.first - 1 + i, column.col - 1, text, f, value)
    for col, width in sorted(s.widths.items()):
        ws.set_column(col - 1, col - 1, width)
    for row, height in sorted(s.heights.items()):
        ws.set_row(row - 1, height)
    for v in s.validations:
        if v.cells:
            first = xl_cell_to_rowcol(v.cells[0])
            ws.data_validation(*first, *first, v.options | {"multi_range": " ".join(v.cells)})
    for ranges, options in s.conditions:
        opts = dict(options)
        opts["format"] = formats.fill(opts.pop("fill"))
        first = ranges.split()[0]
        ws.conditional_format(first, opts | ({"multi_range": ranges} if " " in ranges else {}))
    for ch in s.charts:
        ws.insert_chart(ch.anchor, chart(wb, s.title, ch))
    if s.freeze:
        ws.freeze_panes(s.freeze)
    setup(ws, s, page)


def put(ws: Any, c: Cell, f: Any) -> None:
    r, k, v = c.row - 1, c.col - 1, c.value
    if c.is_formula:
        ws.write_formula(r, k, v, f, c.cached)
    elif v is None or v == "":
        ws.write_blank(r, k, None, f)
    elif c.text or isinstance(v, str):
        ws.write_string(r, k, v, f)
    elif isinstance(v, bool):
        ws.write_boolean(r, k, v, f)
    else:
        ws.write_number(r, k, v, f)


def setup(ws: Any, s: Sheet, page: dict[str, str]) -> None:
    """Formulas locked, inputs editable, no password (against slips, not people); A4 landscape, a page
    wide (or pages of column groups), the title and page numbers on every page."""
    ws.protect("", {"format_columns": True, "format_rows": True})
    ws.set_landscape()
    ws.set_paper(9)
    if s.column_breaks:                 # pages of column groups, each as wide as it is (no shrinking to one page)
        ws.set_v_pagebreaks(sorted({c - 1 for c in s.column_breaks}))
        ws.set_print_scale(s.print_scale)
    else:
        ws.fit_to_pages(1, 0)
    ws.set_header(page["header"].replace("&A", s.title))
    ws.set_footer(page["footer"])
    if s.print_area:
        ws.print_area(s.print_area)
    if s.repeat_rows:
        ws.repeat_rows(s.repeat_rows[0] - 1, s.repeat_rows[1] - 1)
    if s.repeat_columns:
        ws.repeat_columns(s.repeat_columns)


def chart(wb: xlsxwriter.Workbook, title: str, spec: Chart) -> Any:
    ch = wb.add_chart({"type": "scatter", "subtype": "straight"})
    ch.set_title({"name": spec.title, "name_font": {"size": 12}})
    ch.set_size({"width": round(spec.size_cm[0] * CM), "height": round(spec.size_cm[1] * CM)})
    for axis, name, log in ((ch.set_x_axis, spec.x_title, spec.log_x), (ch.set_y_axis, spec.y_title, spec.log_y)):
        axis({"name": name, "num_format": "General", "major_gridlines": {"visible": True, "line": {"color": "#D9D9D9"}},
              **({"log_base": 10} if log else {})})
    for s in spec.series:
        colour = "#" + s.colour
        look = ({"marker": {"type": "circle", "size": 8, "fill": {"color": colour}, "border": {"color": colour}},
                 "line": {"none": True}} if s.point else
                {"marker": {"type": "none"}, "line": {"color": colour, "width": 1.75}})
        ch.add_series({"name": s.name, "categories": [title, s.lo - 1, s.x_col - 1, s.hi - 1, s.x_col - 1],
                       "values": [title, s.lo - 1, s.y_col - 1, s.hi - 1, s.y_col - 1], **look})
    ch.set_legend({"position": "right"})
    return ch


def created(when: datetime) -> datetime:
    """XlsxWriter stores the creation date in the file: a fixed one makes the bytes reproducible."""
    return max(when, datetime(1980, 1, 1))
