"""Shared test helpers: load and evaluate a scenario file or inline YAML; reports rendered once per test run and their
text read once."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from sizing.evaluate import Results, evaluate
from sizing.scenario import load_scenario, load_scenario_bytes

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def results_of(name: str) -> Results:
    return results_at(ROOT / "scenarios" / f"{name}.yaml")


def results_at(path: Path) -> Results:
    """A scenario file evaluated (it must load without errors)."""
    scn, problems = load_scenario(path)
    assert scn is not None, problems
    return evaluate(scn)


def problems_of(text: str, name: str = "s.yaml") -> list[str]:
    """Every problem of an inline scenario, as printed lines."""
    scn, problems = load_scenario_bytes(text.encode(), name)
    if scn is not None:
        problems = problems + evaluate(scn).problems
    return [str(p) for p in problems]


def shown(r: Results, dec, o) -> str:
    """An option as the workbook names it ('Instinct MI300X (batch 21), on demand')."""
    from sizing.narrative.memo import table_names
    return table_names(r, dec, figure=False)[o.id]


def value(r: Results, workload: str, device: str, qid: str):
    pair = r.pair(workload, device)
    assert pair is not None, (workload, device)
    return pair.values[qid]


def family_figure(family: str, name: str) -> float:
    """A device family's default figure in SI units (fractions as shares, times in seconds)."""
    from sizing.binding import figure
    from sizing.catalog import family_defaults
    return figure(name.removesuffix("_8bit"), str(family_defaults()[family][name]["value"]))[0]


STAND_IN_WORKBOOK = b"PK\x03\x04 stand-in workbook bytes"       # attached where a test does not read the workbook


@lru_cache(maxsize=None)
def shipped_report(path: Path) -> bytes:
    """The report of a scenario file with a stand-in workbook attached, rendered once per test run: xdist workers
    share it through a folder of the run (a lock per report keeps a second worker waiting, not rendering too)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:                                   # one process: its own cache is the run's
        return _render(path)
    folder = Path(tempfile.gettempdir()) / "sizing-test-renders" / run
    if not folder.exists():
        for old in folder.parent.glob("*") if folder.parent.exists() else ():
            if time.time() - old.stat().st_mtime > 86400:          # runs of other days
                shutil.rmtree(old, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{path.stem}-{hashlib.sha256(path.read_bytes()).hexdigest()[:16]}.pdf"
    with open(folder / f"{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            part = out.with_suffix(f".{os.getpid()}.part")
            part.write_bytes(_render(path))
            part.rename(out)
    return out.read_bytes()


def _render(path: Path) -> bytes:
    from sizing.render.report import report_bytes

    return report_bytes(results_at(path), workbook=STAND_IN_WORKBOOK)


@lru_cache(maxsize=32)
def page_texts(data: bytes) -> tuple[str, ...]:
    """Each page's text as PDFium reads it (in drawing order), whitespace collapsed (table cells and wrapped lines
    become single spaces), read once per PDF."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    return tuple(" ".join(doc[i].get_textpage().get_text_range().split()) for i in range(len(doc)))
