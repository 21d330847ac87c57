"""The README sheet: the question, the recommendation, how to use, provenance."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

from ... import __version__
from ...output import build_datetime
from ...scenario import sha256

from .base import (Align, Book, CHECK_BAD, CHECK_OK, Cell, MASTER, REQUIREMENTS_MET, Sheet, by_workload, put,
                   put_text, widths)
from .names import recommendation_name
from .summary import is_serving


# -- README ------------------------------------------------------------------------------------
def readme_sheet(b: Book, ws: Sheet) -> None:
    scn, r = b.scn, b.r
    put_text(ws, 1, 1, scn.title, "sizing title")
    row = 2
    if "description" in scn.meta:
        wrap(ws, put_text(ws, row, 1, scn.meta["description"].value), README_WIDTH + 24)
        ws.merge(row, 1, row, 2)
        row += 1
    row = readme_section(ws, row + 1, "What this workbook answers", answers(b))
    for i, dec in enumerate(r.decisions or [None]):
        several = len(r.decisions) > 1
        put_text(ws, row, 1, f"recommendation ({dec.workload})" if several else "recommendation")
        name = recommendation_name(i)
        cell = put(ws, row, 2, f"={name}", value_of=b.named[name].cached) if dec else \
            put_text(ws, row, 2, "no decision in this scenario")
        cell.bold = True
        row += 1
    row -= 1
    for k, (name, good, bad) in enumerate(((MASTER, "OK: every sanity check passes", "FAILED: see the Checks sheet"),
                                           (REQUIREMENTS_MET, "every option meets every requirement checked",
                                            "some options fail a requirement (a finding): see Checks"))):
        put_text(ws, row + 1 + k, 1, ("master check", "requirements")[k])
        put(ws, row + 1 + k, 2, f'=IF({name},"{good}","{bad}")', value_of=good if b.named[name].cached else bad)
        ws.condition(f"B{row + 1 + k}", type="formula", criteria=f"={name}", fill=CHECK_OK)
        ws.condition(f"B{row + 1 + k}", type="formula", criteria=f"=NOT({name})", fill=CHECK_BAD)
    if any(o.variant == "api" for d in r.decisions for o in d.options):
        put_text(ws, row + 3, 2, "a hosted API's latency is checked at its provider's stated service level (api: "
                                 "ttft_p95, per_token_p95); its capacity is not modelled")
        row += 1
    row = readme_section(ws, row + 4, "How to use", how_to(r))
    row = colour_key(ws, row)
    row = readme_section(ws, row, "Provenance", provenance(b))
    row = readme_section(ws, row, "Sheets", [(name, sweep_words(r) if name == "Sweep" else summary_words(b)
                                              if name == "Summary" else what) for name, what in SHEETS
                                             if name in b.sheets])
    notes = b.notes + found_notes(r) + [p.message for p in r.problems]
    if notes:
        readme_section(ws, row, "Notes", [("", n) for n in notes])
    widths(ws, {"A": 24, "B": README_WIDTH})


README_WIDTH = 100


def wrap(ws: Sheet, cell: Cell, width: float) -> None:
    """Wrap the text and make the row tall enough (spreadsheets do not grow rows on opening)."""
    cell.align = Align(vertical="top", wrap=True)
    lines = sum(max(1, math.ceil(len(part) / (width * 1.15))) for part in str(cell.value).split("\n"))
    if lines > 1:
        ws.heights[cell.row] = 15 * lines


def how_to(r) -> tuple[tuple[str, str], ...]:
    """The steps, the first saying which parts are values rather than formulas, where the workbook has them."""
    values = [what for what, present in (("the Uncertainty sheet (a simulation)", r.simulation is not None),
                                         ("the grids labelled as engine values (a decision in each cell)", r.grids))
              if present]
    but = f", but {' and '.join(values)}" if values else ""
    return (("1", f"Change a yellow cell on Inputs (value in the unit shown beside it). Everything else is a "
                  f"formula{but}."),) + HOW_TO


HOW_TO = (
    ("2", "Calc holds one quantity per row in SI base units; Results converts the headline figures to ms, GB, "
          "tokens/s and money and ranks the options live."),
    ("3", "Checks must stay TRUE; the master check is repeated above. Requirements may be FALSE: that is a "
          "finding about an option."),
    ("4", "Every input and result has a name (Formulas > Name Manager): e.g. a formula reads "
          "dev.<device>.price or <workload>.<device>.step_time."),
    ("5", "The sheets are protected without a password to prevent slips; unprotect to restructure."),
    ("6", "The file asks to be recalculated when opened. LibreOffice does so only when Tools > Options > Calc > "
          "Formula > Recalculation on file load is 'Always recalculate' (its default may keep the stored values); "
          "Excel always does."),
)
def summary_words(b: Book) -> str:
    """What the Summary sheet shows, for the decisions it has: a fleet by the month, a run by its hours (a finance
    reviewer of a training workbook looked for 'a year, the horizon, the unit cost' and found none)."""
    kinds = {is_serving(b, dec) for dec in b.r.decisions}
    fleets = "a fleet: how it is paid, capital, running cost, a year, the horizon, the unit cost"
    runs = "a run: how it is paid, devices, the cost of the run, capital, duration, the hourly rate"
    said = "; ".join(x for serving, x in ((True, fleets), (False, runs)) if serving in kinds) or fleets
    return f"per option ({said}), its requirements and rank; the recommendation; the money reconciled"


SHEETS = (
    ("Summary", ""),         # summary_words
    ("Inputs", "label | value | unit | factor | base value (named) | source, by device, model, workload"),
    ("Calc", "every quantity of the formula graph, one column per device"),
    ("Fleet", "each fleet search: one row per candidate fleet, its queueing and whether its p95 wait fits"),
    ("Results", "the decision and the headline comparison in display units"),
    ("Sweep", ""),                                                  # in sweep_words: live, values, or none
    ("Uncertainty", "the scenario's draws over its ranges: how often each option is the best (values, not formulas)"),
    ("Checks", "sanity checks (the master check) and the requirements"),
    ("Roofline", "log-log roofline: device ceilings and the workloads' operating points"),
    ("Constants", "every number a formula uses that is not an input (conventions, unit sizes), by name"),
)


def sweep_words(r) -> str:
    """What the Sweep sheet holds for this scenario (a reviewer read 'a live grid' above 'the scenario has no
    sweep')."""
    if not r.sweeps and not r.grids:
        return "empty: the scenario has no sweep or grid (a sweep: block adds one)"
    grid = "; its grid as values from the engine (not live)" if r.grids else ""
    if any(s.parameter != "precision" for s in r.sweeps):
        return f"the scenario's sweep as live rows (edit the swept value) with a chart{grid}"
    if r.sweeps:
        return f"the scenario's sweep as values from the engine (not live: a precision sweep changes inputs){grid}"
    return "the scenario's grid as values from the engine (not live: change it in the scenario)"


VARIANTS = (("fleet", "a fleet"), ("busy_hours", "renting on demand"), ("api", "a hosted API"))


def readme_section(ws: Sheet, row: int, title: str, lines: Iterable[tuple[str, str]]) -> int:
    put_text(ws, row, 1, title, "sizing section")
    row += 1
    for label, text in lines:
        put_text(ws, row, 1, label).align = Align(vertical="top")
        wrap(ws, put_text(ws, row, 2, text), README_WIDTH)
        row += 1
    return row + 1


def found_notes(r) -> list[str]:
    """What a workbook cannot do with the batches sizing found: search again (a finance reviewer typed another
    batch and another target and watched them stay)."""
    found = [w for w in r.scenario.workloads.values() if w.found]
    if not found:
        return []
    listed = ", ".join(f"{w.id} at batch {w.get('batch')} on {', '.join(w.found)}" for w in found)
    return [f"Batches found by sizing ({listed}) are typed in as sizing found them from the scenario's inputs: the "
            "workbook does not search again. Editing a workload's batch or a latency target moves the workload's "
            "own options, not these (Summary says, live, whether each found batch still follows the rule it was "
            "found by); run sizing on the edited scenario to search again. A found batch keeps a tenth "
            "of each latency target to spare, or meets it at the median speed of its device's published runs where "
            "slower; best_batch (Calc) is the largest batch within the per-token target itself."]


def answers(b: Book) -> list[tuple[str, str]]:
    r = b.r
    kinds = sorted({p.kind for p in r.pairs})
    kinds_of = [r.scenario.workloads.get(w) for w in by_workload(r.pairs)]
    roots = [w for w in kinds_of if not getattr(w, "alternative_of", "")]
    found = sum(bool(getattr(w, "found", ())) for w in kinds_of)
    alts = len(kinds_of) - len(roots) - found
    also = (f" and {alts} alternative(s)" if alts else "") + (f", {found} batch(es) found by sizing" if found else "")
    lines = [("question", f"{len(roots)} workload(s){also} ({', '.join(kinds)}) evaluated on "
                          f"{len(b.devices)} device(s): {', '.join(b.devices)}")]
    for d in r.decisions:
        goal = "highest" if d.maximise else "lowest"
        req = f", among options meeting {', '.join(d.require)}" if d.require else ""
        budget = f", within the {' and '.join(d.budget)} budget" if d.budget else ""
        found = {o.workload for o in d.options if o.alternative and r.scenario.workloads[o.workload].found}
        kinds = [words for v, words in VARIANTS if any(o.variant == v for o in d.options)] + \
            (["an alternative"] if any(o.alternative and o.workload not in found for o in d.options) else []) + \
            (["a batch found by sizing"] if found else [])
        among = f" ({', '.join(kinds[:-1])} or {kinds[-1]})" if len(kinds) > 1 else ""
        lines.append(("decision", f"{d.title + ': ' if d.title else ''}which option{among} gives the {goal} "
                                  f"{d.quantity} for workload {d.workload}{req}{budget}"))
    return lines


def colour_key(ws: Sheet, row: int) -> int:
    put_text(ws, row, 1, "Colour key", "sizing section")
    put_text(ws, row + 1, 1, "input", "sizing input").locked = True
    put_text(ws, row + 1, 2, "pale yellow, blue figures: an assumption you may change (the only unlocked cells)")
    put_text(ws, row + 2, 1, "calculation")
    put_text(ws, row + 2, 2, "black on white: a formula; do not overwrite")
    for i, (label, fill) in enumerate((("TRUE", CHECK_OK), ("FALSE", CHECK_BAD))):
        put_text(ws, row + 3 + i, 1, label).fill = fill
    put_text(ws, row + 3, 2, "a check that holds")
    put_text(ws, row + 4, 2, "a check that fails (sanity) or an option that misses a requirement (finding)")
    return row + 6


def provenance(b: Book) -> list[tuple[str, str]]:
    scn = b.scn
    lines = [("tool", f"sizing {__version__}"), ("scenario file", Path(scn.file).name),
             ("SHA-256", sha256(scn.data)), ("built", build_datetime(scn).strftime("%Y-%m-%d %H:%M:%S"))]
    lines += [(k, scn.meta[k].value) for k in ("name", "owner", "date", "status") if k in scn.meta]
    return lines


