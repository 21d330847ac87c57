"""The workbook: every result a live Excel formula over named, editable input cells (openpyxl)."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook

from ... import __version__, currency
from ...evaluate import Results
from ...output import build_datetime, write_atomic

from .base import MASTER, RECOMMENDATION, REQUIREMENTS_MET, Book, finish, input_shown, names_of, valid_name
from .inputs import calc_sheet, inputs_sheet
from .checks import checks_sheet, error_check
from .results import recommendation_name, results_sheet
from .sweep import sweep_sheet
from .roofline import roofline_sheet
from .readme import readme_sheet


__all__ = ["MASTER", "RECOMMENDATION", "REQUIREMENTS_MET", "build", "input_shown", "names_of", "recommendation_name",
           "valid_name", "workbook_bytes", "write_workbook"]


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
    error_check(b)
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
