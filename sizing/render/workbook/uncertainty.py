"""The Uncertainty sheet: the draws' summary as values (a simulation result, labelled with its seed and draw
count), the ranges drawn from, per decision each option's share of wins and of draws it qualifies in, the
percentiles of its objective and monthly cost, the regret and the drivers. The Inputs sheet shows each range beside
its input."""

from __future__ import annotations

from ... import currency
from ...narrative import confidence as C
from ...narrative.common import objective_words, workload_title
from ...narrative.memo import input_words

from .base import Align, Book, Sheet, header, input_shown, money, put, put_text, widths

TITLE = "Uncertainty"
SHARE = '[=0]0%;[<0.001]"< 0.1%";0.0%'      # never a false 0.0 % for a share that is not zero
NEARLY_ALL = '[=1]0%;[>=0.9995]"> 99.9%";0.0%'    # nor a false 100.0 % for one that is not all


def share_format(p: float | None) -> str:
    """A share's format: SHARE, or NEARLY_ALL where 0.0 % would round it up to 100.0 % (0.9995 read 100.0 %). The
    draws are values as built, so the format chosen for a value holds for the formulas that refer to it."""
    return NEARLY_ALL if isinstance(p, float) and 0.9995 <= p < 1 else SHARE


def uncertainty_sheet(b: Book, ws: Sheet) -> None:
    sim = b.r.simulation
    n = sim.spec.draws
    put_text(ws, 1, 1, "Uncertainty: a simulation result (values, not formulas)", "sizing title")
    for i, line in enumerate((
            f"sizing evaluated the scenario {n:,} times (simulated cases, or draws) with random seed "
            f"{sim.spec.seed}, each input below drawn from its range and the decision taken in every case.",
            "These values do not follow edits to Inputs: change the ranges in the scenario and run sizing again.",
            f"Each share is {C.error_words(n)}; percentiles are over the cases where the option meets every "
            f"requirement.")):
        put_text(ws, 2 + i, 1, line, "sizing note")
    put_text(ws, 6, 1, "draws")
    put(ws, 6, 2, n, "#,##0")
    put_text(ws, 7, 1, "random seed")
    put(ws, 7, 2, sim.spec.seed, "0")
    row = ranges(b, ws, 9) + 1
    for dec in b.r.decisions:
        s = C.spread_for(b.r, dec)
        if s is not None:
            row = decision(b, ws, row, dec, s) + 1
    widths(ws, {"A": 46, **{c: 17 for c in "BCDEFGHIJK"}})
    ws.freeze = "B1"
    ws.print_area = f"A1:K{row}"


def ranges(b: Book, ws: Sheet, row: int) -> int:
    """Each uncertain input's range in the unit the Inputs sheet shows it in."""
    put_text(ws, row, 1, "Ranges drawn from", "sizing section")
    header(ws, row + 1, ["input", "shape", "low", "most likely", "high", "median", "95th percentile", "unit",
                         "group", "as given"], right=range(3, 8))
    row += 2
    for rg, key in b.r.simulation.cells:
        inp = b.r.inputs[key]
        value, shown = input_shown(inp)
        put_text(ws, row, 1, input_words(b.r, key).removeprefix("the "))
        put_text(ws, row, 2, rg.shape)
        fmt = "0.0%" if shown.percent else "#,##0.00##"
        for col, name in ((3, "low"), (4, "mode"), (5, "high"), (6, "median"), (7, "p95")):
            if name in dict(rg.bounds):
                put(ws, row, col, rg.get(name) / shown.factor, fmt)
        put_text(ws, row, 8, "" if shown.percent else currency.label(shown.label))
        put_text(ws, row, 9, rg.group)
        put(ws, row, 10, value, fmt)
        row += 1
    return row


def decision(b: Book, ws: Sheet, row: int, dec, s) -> int:
    put_text(ws, row, 1, f"Decision: {dec.title or 'the ' + objective_words(dec)} of "
                         f"{workload_title(b.r, dec.workload)}", "sizing section")
    put_text(ws, row + 1, 1, C.sentence(b.r, dec), "sizing note")
    requirements = [q for q, _ in s.options[0].meets] if s.options else []
    unit = currency.label(dec.unit.replace("USD", "$")) if dec.unit.startswith("USD") else dec.unit
    monthly = dec.quantity != "monthly_cost"          # the monthly cost beside another objective
    head = ["option", "best in (share of cases)", "meets every requirement",
            *(C.MEETS.get(q, f"meets {q}") for q in requirements),
            f"{objective_words(dec)} ({unit}): 5th percentile", "median", "95th percentile",
            *([f"monthly cost ({currency.label('$/month')}): 5th percentile", "median", "95th percentile"]
              if monthly else [])]
    header(ws, row + 2, head, right=range(2, len(head) + 1))
    for col in range(2, len(head) + 1):
        ws.cell(row + 2, col).align = Align("right", vertical="top", wrap=True)
    ws.heights[row + 2] = 45
    row += 3
    cash = dec.unit.startswith("USD")
    for o in s.options:
        put_text(ws, row, 1, C.label(b.r, dec, o.option))
        put(ws, row, 2, o.win_probability, share_format(o.win_probability))
        put(ws, row, 3, o.meets_probability, share_format(o.meets_probability))
        b.drawn[(dec.id, o.option)] = ((f"{TITLE}!B{row}", o.win_probability),      # Summary refers to them
                                       (f"{TITLE}!C{row}", o.meets_probability))
        for j, (_, p) in enumerate(o.meets):
            put(ws, row, 4 + j, p, share_format(p))
        col = 4 + len(requirements)
        for k, v in enumerate((*(o.objective or (None,) * 3), *((o.monthly or (None,) * 3) if monthly else ()))):
            if v is not None:
                put(ws, row, col + k, v, money() if cash or k >= 3 else "#,##0.00##")
            else:
                put_text(ws, row, col + k, "n/a")
        row += 1
    subject = C.label(b.r, dec, s.subject) if s.subject else "-"
    for label, value, fmt in (("no option qualifies in", s.none_qualifies, share_format(s.none_qualifies)),
                              (f"{subject} fails a requirement in", s.subject_fails, share_format(s.subject_fails)),
                              (f"{subject} qualifies but another option is better in", s.behind,
                               share_format(s.behind)),
                              (f"  then, on average, it falls short of the best by ({unit})", s.behind_regret,
                               money(2) if cash else "#,##0.00##"),
                              (f"average shortfall against each case's best option, over every case where it "
                               f"qualifies ({unit})", s.expected_regret, money(2) if cash else "#,##0.00##")):
        put_text(ws, row, 1, label)
        if value is None:
            put_text(ws, row, 2, "n/a")
        else:
            put(ws, row, 2, value, fmt)
        row += 1
    if s.drivers:
        row += 1
        header(ws, row, ["what drives the decision", f"rank correlation (-1 to +1) with {C.lead_words(b.r, dec, s.subject)}"],
               right=range(2, 3))
        ws.cell(row, 2).align = Align("right", vertical="top", wrap=True)
        ws.heights[row] = 60
        row += 1
        for d in s.drivers:
            put_text(ws, row, 1, C.driver_words(b.r, d.key, short=True).removeprefix("the "))
            put(ws, row, 2, d.rank_correlation, "+0.00;-0.00;0.00")
            row += 1
    return row


def range_words(b: Book) -> dict[str, str]:
    """Input key -> its range in words, for the Inputs sheet's column beside the inputs."""
    sim = b.r.simulation
    if sim is None:
        return {}
    return {key: rg.words() + (f"; group {rg.group}" if rg.group else "") for rg, key in sim.cells}
