"""The workbook: every result a live Excel formula over named, editable input cells, written by XlsxWriter with
the engine's value of each formula cached beside it."""

from __future__ import annotations

from pathlib import Path

from ... import __version__, currency
from ...evaluate import Results
from ...output import build_datetime, write_atomic

from .base import MASTER, RECOMMENDATION, REQUIREMENTS_MET, Book, blank_shown, input_shown, names_of, valid_name
from .inputs import calc_sheet, inputs_sheet
from .checks import checks_sheet, error_check
from .names import INPUTS_IN_RANGE, recommendation_name
from .results import results_sheet
from .sweep import sweep_sheet
from .roofline import roofline_sheet
from .readme import readme_sheet
from .constants import constants_sheet
from .summary import FAILED, OK, drawn_from, summary_sheet
from . import fleet, uncertainty, xlsx


__all__ = ["INPUTS_IN_RANGE", "MASTER", "RECOMMENDATION", "REQUIREMENTS_MET", "blank_shown", "build", "input_shown",
           "names_of", "recommendation_name", "valid_name", "workbook_bytes", "write_workbook"]

SHEETS = ("Summary", "README", "Inputs", "Calc", "Fleet", "Results", "Sweep", "Uncertainty", "Checks", "Roofline",
          "Constants")
LATER = (fleet.TITLE, uncertainty.TITLE)          # made when needed: a fleet search, an uncertainty block


# -- writing -----------------------------------------------------------------------------------
def build(results: Results) -> Book:
    """The sheets for an evaluation, filled so that names exist when used (Constants after every sheet that
    uses one, README last: it repeats the recommendation and the checks)."""
    b = Book(results)
    sheets = {t: b.sheet(t) for t in SHEETS if t not in LATER}
    inputs_sheet(b, sheets["Inputs"])
    calc_sheet(b, sheets["Calc"])
    results_sheet(b, sheets["Results"])
    summary_sheet(b, sheets["Summary"])
    checks_sheet(b, sheets["Checks"])
    sweep_sheet(b, sheets["Sweep"])
    if results.simulation is not None:
        uncertainty.uncertainty_sheet(b, b.sheet(uncertainty.TITLE))
        drawn_from(b, sheets["Summary"])
    roofline_sheet(b, sheets["Roofline"])
    constants_sheet(b, sheets["Constants"])
    error_check(b)
    sheets["Summary"].cell(3, 2).cached = OK if b.master_value() else FAILED
    readme_sheet(b, sheets["README"])
    return b


@currency.rendered
def workbook_bytes(results: Results) -> bytes:
    """The .xlsx file of an evaluation, byte-identical for the same scenario."""
    b = build(results)
    scn = results.scenario
    when = xlsx.created(build_datetime(scn))
    props = {"title": scn.title, "author": f"sizing {__version__}", "created": when,
             "subject": "Hardware sizing: formula-live workbook",
             "comments": f"Built by sizing {__version__} from {Path(scn.file).name}; every result is a formula "
                         "over the Inputs sheet, with the engine's value cached."}
    page = {"header": f"&L{header_text(scn.title)}&R&A", "footer": f"&L{header_text(Path(scn.file).name)}"
                                                                   "&RPage &P of &N"}
    return xlsx.write([b.sheets[t] for t in SHEETS if t in b.sheets], b.defined, props, page)


def header_text(text: str) -> str:
    """Text for a printed header: '&' doubled (it starts a code), at most 100 characters."""
    return text.replace("&", "&&")[:100]


def write_workbook(results: Results, path: str | Path) -> None:
    """Write the workbook atomically; refuses to overwrite the scenario file."""
    write_atomic(path, workbook_bytes(results), inputs=(results.scenario.file,))
