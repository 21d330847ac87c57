"""How sure the recommendation is: the report's section from the draws of the scenario's uncertain inputs (its
ranges, each option's share of wins and the spread of its objective, the drivers), and page one's sentences."""

from __future__ import annotations

from ... import formulas as F
from ...evaluate import Results
from ...narrative import confidence as C
from ...narrative.memo import input_words, objective_unit, option_words
from ...results import Decision
from .. import spread_charts
from ... import currency
from ..format import aligned, money_column, separated
from .context import Chart, Confidence, Table

CHART_ROWS = 10           # options drawn in the spread chart: the ones that win some draws first


def confidence(r: Results, dec: Decision) -> Confidence | None:
    s = C.spread_for(r, dec)
    if s is None:
        return None
    sim = r.simulation
    n = sim.spec.draws
    groups = sorted({rg.group for rg, _ in sim.cells if rg.group})
    intro = (f"The scenario was evaluated {n:,} times (simulated cases, or draws), each time with every uncertain "
             f"input below drawn from its range (random seed {sim.spec.seed}: the same seed gives the same draws and "
             f"this same report), and the decision taken in each case as for the recommendation: "
             f"{C.best_words(dec)}. Each percentage is {C.error_words(n)}. "
             + (f"Inputs of a group ({', '.join(groups)}) share their draw: each is at the same position in its own "
                f"range (its same percentile), so they move together. " if groups else "")
             + "Every other input keeps the value the scenario gives it; the options are those of the options table. "
             + skew_words(r))
    options, note = options_table(r, dec)
    return Confidence(C.sentence(r, dec), C.regret_words(r, dec), C.drivers_sentence(r, dec, short=True), intro,
                      ranges_table(r), options, note, spread_chart(r, dec), driver_chart(r, dec))


def ranges_table(r: Results) -> Table:
    rows = []
    for rg, key in r.simulation.cells:
        words = input_words(r, key).removeprefix("the ")
        rows.append((words[:1].upper() + words[1:], rg.words(), separated(r.inputs[key].value.text),
                     rg.group or "–", C.share(below(r, key))))
    return Table(("Uncertain input", "Range drawn from", "As given", "Group", "Draws below the value as given"),
                 tuple(rows), ("l", "l", "r", "l", "r"))


def options_table(r: Results, dec: Decision) -> tuple[Table, str]:
    """Per option that meets every requirement in some draw: its share of wins and of draws it qualifies in, and its
    objective's percentiles in one format; the options that never qualify named in a note."""
    s = C.spread_for(r, dec)
    d = F.definition(dec.quantity)
    unit, display = objective_unit(dec)
    some = [o for o in s.options if o.meets_probability > 0]
    values = [v for o in some for v in (o.objective or (None,) * 3)]
    money = unit.startswith("USD")
    shown = iter(money_column(values) if money else aligned(values, unit, display))
    rows = []
    for o in some:
        p5, p50, p95 = (next(shown) for _ in range(3))
        rows.append((name_of(r, dec, o.option), C.share(o.win_probability), C.share(o.meets_probability),
                     *(x if o.objective else "n/a" for x in (p5, p50, p95))))
    mark = next((i for i, o in enumerate(some) if o.option == dec.recommendation), None)
    what = (d.label or dec.quantity) if d else dec.quantity
    per = f" ({currency.label(dec.unit.replace('USD', '$'))})" if money else ""
    head = ("Option", "Best in (share of cases)", "Meets every requirement in (share of cases)",
            f"{what}{per} where it meets every requirement: 5th percentile", "Median", "95th percentile")
    never = [name_of(r, dec, o.option) for o in s.options if o.meets_probability == 0]
    note = f"Never meets every requirement in any case: {'; '.join(never)}." if never else ""
    return Table(head, tuple(rows), ("l", "r", "r", "r", "r", "r"), mark), note


def name_of(r: Results, dec: Decision, oid: str) -> str:
    return C.label(r, dec, oid)


def spread_chart(r: Results, dec: Decision) -> Chart | None:
    s = C.spread_for(r, dec)
    shown = [o for o in s.options if o.objective and o.meets_probability > 0][:CHART_ROWS]
    if not shown:
        return None
    rows = [spread_charts.Interval(name_of(r, dec, o.option), *o.objective,
                                   f"best in {C.share(o.win_probability)}" +
                                   (f"; meets all in {C.share(o.meets_probability)}" if o.meets_probability < 1 else ""),
                                   o.option == dec.recommendation) for o in shown]
    d = F.definition(dec.quantity)
    name = (d.label or dec.quantity) if d else dec.quantity
    left = [name_of(r, dec, o.option) for o in s.options if o.objective and o.meets_probability > 0][CHART_ROWS:]
    return Chart(f"Each option's {name.lower()} over the {r.simulation.spec.draws:,} cases: the bar spans the 5th to "
                 f"the 95th percentile, the tick is the median, the recommendation is blue; beside each, the share of "
                 f"cases in which it is the best option that meets every requirement. A case in which an option "
                 f"does not fit or misses a target gives it no value (the percentiles are over the cases where it "
                 f"meets every requirement)."
                 + (f" The {len(shown)} options that win or qualify most often are drawn; the table above gives the "
                    f"others ({'; '.join(left)})." if left else ""),
                 spread_charts.intervals(f"{name} over the draws", rows, dec.unit))


def driver_chart(r: Results, dec: Decision) -> Chart | None:
    s = C.spread_for(r, dec)
    if not s.drivers or s.subject is None:
        return None
    subject = option_words(r, dec.option(s.subject), short=True)
    rows = [(label(C.driver_words(r, d.key, short=True)), d.rank_correlation) for d in s.drivers]
    return Chart(f"What drives the decision: each uncertain input's rank correlation (from \u22121 to +1; 0: no "
                 f"effect) with {C.lead_words(r, dec, s.subject)} in each case, as a share of the next best option's "
                 f"{dec.quantity.replace('_', ' ')} (a case where {subject} fails a requirement counts as its "
                 f"smallest lead). Green: a larger value of the input widens the lead; orange: it narrows it.",
                 spread_charts.drivers("What drives the decision", rows, subject))


def skew_words(r: Results) -> str:
    """A note where the scenario's own value sits off the middle of some range's draws."""
    if not any(abs(below(r, key) - 0.5) >= 0.15 for _, key in r.simulation.cells):
        return ""
    return ("The other sections are at the values as given; where most draws of a range fall below or above its "
            "value as given (the last column), the percentiles below differ from those figures.")


def below(r: Results, key: str) -> float:
    """The share of an input's draws below its value as given."""
    return float((r.simulation.draws[key] < r.inputs[key].value.value).mean())


def label(words: str) -> str:
    words = words.removeprefix("the ")
    return words[:1].upper() + words[1:]
