"""A second, independent spreadsheet engine (the `formulas` package, pure Python) recalculates the shipped
workbooks: every formula cell it can compute equals the value stored beside it (the engine's, which LibreOffice
also reproduces)."""

from __future__ import annotations

import io
import math
import warnings

import openpyxl
import pytest

from helpers import results_of
from sizing.render.workbook import workbook_bytes

formulas = pytest.importorskip("formulas")      # in the test extras: missing only outside `pip install .[test]`

# Every formula cell agrees. The other shipped workbooks need POISSON beyond 170 events (a fleet of hundreds of
# slots), where the package's factorial overflows (#NUM!) and Excel and LibreOffice do not: eu-assistant-eur
# stands for them, every cell either agreeing, #NUM! from that limit, or the error count that sees it.
AGREE = ("finetune-approach", "pretrain-deadline", "ref-7b-decode", "ref-benchmark-economics", "ref-classifier",
         "ref-edge-model", "ref-embedding-service", "ref-finetune-7b", "ref-link-matmul", "ref-precision-footprints")
POISSON_LIMITED = ("eu-assistant-eur",)
ERRORS = ("#NUM!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#N/A", "#NULL!")


def recalculated(tmp_path, name: str) -> tuple[list[tuple[str, str, object, object]], int]:
    """(sheet, cell, second engine's value, stored value) of every formula cell that differs, and the count."""
    path = tmp_path / f"{name}.xlsx"
    path.write_bytes(workbook_bytes(results_of(name)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solution = formulas.ExcelModel().loads(str(path)).finish().calculate()
    book = openpyxl.load_workbook(path)
    stored = openpyxl.load_workbook(io.BytesIO(path.read_bytes()), data_only=True)
    sheets = {ws.title.upper(): ws.title for ws in book}
    differ, n = [], 0
    for key, got in solution.items():
        where = key.upper().rsplit("!", 1)
        if len(where) != 2 or ":" in where[1] or where[0].split("]")[-1].strip("'") not in sheets:
            continue
        title, cell = sheets[where[0].split("]")[-1].strip("'")], where[1]
        text = book[title][cell].value
        if not (isinstance(text, str) and text.startswith("=")):
            continue
        n += 1
        value = got.value[0, 0] if hasattr(got, "value") else got
        want = stored[title][cell].value
        if not agrees(value, want):
            differ.append((title, cell, str(value), want))
    return differ, n


def agrees(got, want) -> bool:
    if isinstance(want, bool):
        return not isinstance(got, str) and bool(got) is want
    if isinstance(want, (int, float)):
        try:
            return math.isclose(float(got), want, rel_tol=1e-9, abs_tol=1e-300)
        except (TypeError, ValueError):
            return False
    if want in (None, ""):
        return str(got) in ("", "empty", "None")
    return str(got) == str(want)


@pytest.mark.slow
@pytest.mark.parametrize("name", AGREE)
def test_a_second_engine_computes_every_formula_as_stored(tmp_path, name):
    differ, n = recalculated(tmp_path, name)
    assert n > 100
    assert differ == []


@pytest.mark.slow
@pytest.mark.parametrize("name", POISSON_LIMITED)
def test_where_the_second_engine_differs_it_is_its_poisson_limit(tmp_path, name):
    differ, n = recalculated(tmp_path, name)
    assert differ and len(differ) < n / 5
    assert any(sheet == "Fleet" for sheet, *_ in differ)
    # beyond its own #NUM!, only what counts errors differs: the error check, the master check and its status lines
    assert {(sheet, got) for sheet, _, got, _ in differ if got != "#NUM!"} == {
        ("Checks", "False"), ("README", "FAILED: see the Checks sheet"), ("Summary", "FAILED: see Checks")}
