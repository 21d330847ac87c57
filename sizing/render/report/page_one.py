"""Page one: each decision's recommendation, the options compared, budgets and the recommendations together."""

from __future__ import annotations

from datetime import date

from ... import alternatives
from ... import kinds as K
from ...decide import budget_quantity, pair_of
from ...evaluate import Pair, Results
from ...narrative import (HOURS_PER_MONTH, defs, device_name, fleet_words, label, objective_words, pairs_of, show,
                          value_words, verdict, why, workload_title)
from ..format import aligned, human
from ...narrative.lead import margin_words
from ...narrative.memo import action, fallback, option_words, table_names
from ...narrative.checked import reason, requirements
from ...narrative.layouts import another
from ...narrative.risks import risks
from ...narrative.training import slow_words
from . import memo
from .context import Decision, Table
from .sensitivity import sensitivity
from .spread import confidence


FIGURE_COLUMNS = 5                 # key figures beside the objective in the comparison table
# A service option's figure in place of a fleet's (None: not applicable); the API shows only what it maps.
VARIANT_FIGURES = {
    "busy_hours": {"cost_per_million_tokens": "busy_hours_cost_per_million_tokens",
                   "cost_per_million_requests": "busy_hours_cost_per_million_requests",
                   "monthly_cost": "busy_hours_monthly_cost", "fleet_devices": "busy_hours_devices", "devices_needed": None,
                   "monthly_cost_own": None},
    "api": {"cost_per_million_tokens": "api_cost_per_million_tokens", "monthly_cost": "api_monthly_cost"},
}


def decision_summary(r: Results, which: int, today: date) -> Decision:
    dec = r.decisions[which]
    best = dec.best
    wid = dec.workload
    p = pair_of(r, dec, best) if best else None
    headline = value_words(r, dec, best) if p else "no option qualifies"
    constraint, reasons = why(r, dec)
    table, note = comparison(r, dec)
    title = dec.title or workload_title(r, wid)
    name = device_name(r, best.device) if best and best.variant != "api" else ""
    own = best if best and best.variant == "fleet" else next((o for o in dec.options if o.variant == "fleet"
                                                              and o.passes), None)
    fleet = fleet_words(r, pair_of(r, dec, own), option_words(r, own, short=True)) if own else ""
    if own is not best and fleet:
        fleet = f"{fleet[:-1]}; {show(pair_of(r, dec, own), own.quantity)}."
    sure = confidence(r, dec)
    sens = sensitivity(r, which) if sure is None else None     # ranges given: the draws say what moves it
    options, options_note = memo.options_table(r, dec, today)
    return Decision(title, best.label if best else None, name, headline, objective_words(dec),
                    plain_title(r, best.workload if best and best.workload else wid), constraint, tuple(reasons),
                    table, note, fleet, "Fleet" if own is best else "Cheapest fleet held all month", sens,
                    budget_words(r, dec), *(action(r, dec, best) if best else ("", "")), memo.figures(r, dec),
                    reason(r, dec, constraint), margin_words(r, dec), tuple(requirements(r, dec)),
                    sens.flips if sens else (), sens.more_flips if sens else "", options, options_note,
                    "; ".join(risks(r, dec, best, today)) if best else "", fallback(r, dec), sure,
                    traffic_words(r, best.workload if best and best.workload else wid), *another(r, dec),
                    slow=slow_words(r, dec))


def plain_title(r: Results, wid: str) -> str:
    """A workload as page one names it: its title, else its id; an alternative without a title of its own by its
    workload's (the headline names what the alternative changes)."""
    w = r.scenario.workloads.get(wid)
    if w is not None and w.alternative_of and "title" not in alternatives.given_by(r.scenario.workloads, w):
        return plain_title(r, w.alternative_of)
    return str(w.get("title") or wid) if w else wid


def traffic_words(r: Results, wid: str) -> str:
    """' at a peak of 5 requests/s, 2.5 on average': the traffic every cost on page one is for."""
    peak = r.inputs.get(f"workload.{wid}.traffic.peak")
    v = next((p.values for p in r.pairs if p.workload == wid and isinstance(p.values.get("average_rate"), float)),
             {})
    average, month = v.get("average_rate"), v.get("requests_per_month")
    if peak is None:
        return ""
    said = f" at a peak of {human(peak.value.value, 'request/s')}"
    if average is not None and average != peak.value.value:
        said += f", {human(average, '')} on average" + (f" ({volume(month)} requests a month)"
                                                          if isinstance(month, float) else "")
    return said


def volume(n: float) -> str:
    """A month's requests (requests_per_month): 7,889,400 -> '7.89 M'."""
    return f"{n / 1e9:.3g} billion" if n >= 1e9 else f"{n / 1e6:.3g} M" if n >= 1e6 else f"{n:,.0f}"


def spent(r: Results, dec, o, name: str) -> float | None:
    """What an option uses of a budget, as the decision checks it (renting and the API use no capital)."""
    qid = budget_quantity(name, o.variant)
    if qid is None:
        return 0.0
    v = pair_of(r, dec, o).values.get(qid)
    return v if isinstance(v, float) else None


def budget_words(r: Results, dec) -> str:
    """'Budget: monthly $6,000, of which $1,972 used ($4,028 left)', for the recommended option."""
    if not dec.best or not dec.budget:
        return ""
    unit = {"monthly": "USD/month"}
    named = {"monthly": "", "capex": "capital ", "total": "for the run "}
    parts = []
    for name, limit in dec.budget.items():
        used = spent(r, dec, dec.best, name)
        u = unit.get(name, "USD")
        parts.append(f"{named[name]}{human(limit, u)}" + (f", of which {human(used, u)} used ({human(limit - used, u)} "
                                                           f"left)" if used is not None else ""))
    return "Budget: " + "; ".join(parts) + "."


def together(r: Results) -> str:
    """Every decision's recommendation together, where there are several: monthly cost and capital."""
    best = [(d, d.best) for d in r.decisions if d.best]
    if len(r.decisions) < 2 or len(best) < len(r.decisions):
        return ""
    monthly = [spent(r, d, o, "monthly") for d, o in best]
    capital = [spent(r, d, o, "capex") for d, o in best]
    if any(v is None for v in monthly):
        return ""
    cap = f", which includes writing off {human(sum(capital), 'USD')} of capital bought up front" \
        if all(v is not None for v in capital) and sum(capital) else ""
    return f"The {len(best)} recommendations together: {human(sum(monthly), 'USD/month')}{cap}."


def comparison(r: Results, dec: Decision) -> tuple[Table, str]:
    """Options in the engine's ranking order: objective, key figures, and why each other option lost.

    A key figure that reads the same for every option becomes a note under the table instead of a column.
    """
    wid, qid = dec.workload, dec.quantity
    pairs = pairs_of(r, wid)
    kind = pairs[0].kind if pairs else ""
    present = defs(pairs)
    ranked = [(o, pair_of(r, dec, o)) for o in dec.options]
    fleets = [(o, p) for o, p in ranked if o.variant != "api"]       # the API has no device figures
    figures, same = [], []
    for q in K.get(kind).key_figures:
        if q not in present or q == qid or (q == "ttft" and "ttft_p95" in present) \
                or (q.startswith("api_") and any(o.variant == "api" for o in dec.options)):
            continue                  # the API's figures are an option's own row
        shown = {show(p, q, present[q]) for _, p in fleets}
        if shown <= {"–", "n/a", ""}:
            continue                  # no option has the figure ('The same for every option: Monthly cost, owned –')
        if len(shown) == 1 and len(fleets) > 1:
            same.append(f"{label(q)} {shown.pop()}")
        else:
            figures.append(q)
    first = sorted(figures, key=lambda q: q != "fleet_devices")[:FIGURE_COLUMNS]   # what is bought, then the rest
    figures = [q for q in figures if q in first]                                    # in the order of the kind
    head = ("Rank", "Option", label(qid)) + tuple(label(q) for q in figures) + ("Verdict",)
    rows, mark, names = [], None, table_names(r, dec)
    for i, (o, p) in enumerate(ranked):
        value = value_words(r, dec, o)
        if o.id == dec.recommendation:
            mark = i
        rows.append((str(o.rank) if o.rank else "–", names[o.id], value, verdict(r, dec, o)))
    columns = [column(ranked, q, present[q]) for q in figures]
    rows = [(*row[:3], *(c[i] for c in columns), row[3]) for i, row in enumerate(rows)]
    align = ("r", "l", "r") + ("r",) * len(figures) + ("l",)
    notes = [f"The same for every option: {'; '.join(same)}."] if same else []
    if any(o.failures and o.value is not None for o in dec.options):
        notes.append(f"An option that is priced but fails a requirement (where it runs, the budget) still shows its "
                     f"{objective_words(dec)}, to show what the requirement costs; it is not ranked. One that does not "
                     f"fit or misses a target is not priced (n/a).")
    if "fleet_devices" in figures and any(o.variant == "busy_hours" for o in dec.options):
        notes.append(f"{label('fleet_devices')}: for an option rented on demand as traffic needs, the devices billed "
                     "on average (the options table gives those at the peak).")
    if dec.unit.endswith("/month"):
        notes.append(f"A month is {HOURS_PER_MONTH:g} hours (365.25 days / 12).")
    if any(o.variant == "api" for o in dec.options):
        notes.append("The hosted API's figures are its provider's: its latency is its stated service level where "
                     "given (api: ttft_p95, per_token_p95), its capacity is not modelled (–).")
    return Table(head, tuple(rows), align, mark), " ".join(notes)


def figure(p: Pair, o, qid: str) -> str | None:
    """The quantity that gives an option's key figure: the fleet's, or the service's own in its place (None where
    none applies)."""
    if o.variant == "fleet":
        return qid
    return VARIANT_FIGURES[o.variant].get(qid, qid if o.variant == "busy_hours" else None)


def column(ranked: list, qid: str, d) -> list[str]:
    """A key figure for every option in one format (aligned); an en dash where it does not apply."""
    values = [p.values.get(q) if (q := figure(p, o, qid)) and q in p.values else None for o, p in ranked]
    shown = aligned([v for v in values if v is not None], d.unit, d.display)
    it = iter(shown)
    return [next(it) if v is not None else "–" for v in values]
