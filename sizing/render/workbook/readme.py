"""The README sheet: the question, the recommendation, how to use, provenance."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

from openpyxl.cell.cell import Cell
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font, PatternFill, Protection
from openpyxl.worksheet.worksheet import Worksheet

from ... import __version__
from ...output import build_datetime
from ...scenario import sha256

from .base import Book, CHECK_BAD, CHECK_OK, MASTER, REQUIREMENTS_MET, by_workload, put, put_text, widths
from .results import recommendation_name


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


