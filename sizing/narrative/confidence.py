"""How sure the recommendation is, in words shared by the terminal, the report and the workbook: the share of draws
in which each option is the best that meets every requirement, the sampling error, the regret, the drivers."""

from __future__ import annotations

import math

from ..evaluate import Results
from ..render.format import human
from ..results import Decision
from ..uncertainty.summary import DecisionSpread
from .margin import close_call
from .memo import input_words, money_of, option_words
from .common import objective_words, shown_gap

NAMED = 3               # options a sentence names by their share of wins


def spread_for(r: Results, dec: Decision) -> DecisionSpread | None:
    sim = r.simulation
    return sim.decision(dec.id) if sim is not None else None


def share(p: float) -> str:
    """A probability as the report states it: '87 %', '< 1 %' and '> 99 %' at the ends (never a false 0 or 100)."""
    if p == 0:
        return "0 %"
    if p == 1:
        return "100 %"
    if p < 0.01:
        return "< 1 %"
    if p > 0.99:
        return "> 99 %"
    return f"{p * 100:.0f} %"


def best_words(dec: Decision) -> str:
    """'the cheapest option that meets every requirement' (the best for the objective)."""
    costs = any(w in dec.quantity for w in ("cost", "price"))
    if costs:
        word = "cheapest"
    else:
        word = "best"
    return f"the {word} option that meets every requirement"


def sentence(r: Results, dec: Decision) -> str:
    """'Instinct MI300X on demand is the cheapest option that meets every requirement in 85 % of 10,000 simulated
    cases (each with the uncertain inputs drawn from their ranges); H200 SXM 141GB on demand in 9 %, ...'"""
    s = spread_for(r, dec)
    if s is None:
        return ""
    n = r.simulation.spec.draws
    named = [o for o in s.options if o.win_probability > 0][:NAMED]
    if not named:
        return f"In none of {n:,} simulated cases (each with the uncertain inputs drawn from their ranges) does " \
               f"any option meet every requirement."
    first, *rest = named
    lead = f"{upper(label(r, dec, first.option))} is {best_words(dec)} in {share(first.win_probability)} of " \
           f"{n:,} simulated cases (each with the uncertain inputs drawn from their ranges)"
    others = [f"{label(r, dec, o.option)}{failing(dec, o.option)} in {share(o.win_probability)}" for o in rest]
    if s.none_qualifies > 0:
        others.append(f"none qualifies in {share(s.none_qualifies)}")
    out = lead + ("; " + ", ".join(others) if others else "") + "."
    mine = s.option(s.subject) if s.subject else None
    if mine is not None and mine.objective is not None and "USD" in dec.unit and not dec.maximise:
        low, mid, high = (human(x, dec.unit) for x in mine.objective)     # a signer: the budget range on page one
        out += (f" Where it meets every requirement, its {objective_words(dec)} runs {low} to {high} (5th to 95th "
                f"percentile; median {mid}).")
    if close_call(dec, r):
        out += (" These shares take the speed estimates as right; the lead is within how far published runs have "
                "missed them, so it stays a close call.")
    return out


def failing(dec: Decision, oid: str) -> str:
    """' (which fails a requirement at the stated inputs)' for an option the ranking left out: it wins only in
    draws where the uncertain inputs let it qualify."""
    o = dec.option(oid)
    return " (which fails a requirement at the stated inputs)" if o is not None and not o.passes else ""


def label(r: Results, dec: Decision, oid: str) -> str:
    """An option as these sentences name it: 'Instinct MI300X on demand', 'H200 SXM 141GB (bf16), rented by the
    hour', 'H100 SXM5 80GB, bought' (a fleet by its cost basis in the scenario as given)."""
    o = dec.option(oid)
    if o is None:
        return oid
    words = option_words(r, o, short=True).replace(", on demand", " on demand")
    return f"{words}, {money_of(r, dec, o).basis}" if o.variant == "fleet" else words


# What an option that fails a requirement in a draw does there, by requirement.
MISSES = {"fits_memory": "does not fit in memory", "fits": "does not fit in memory",
          "meets_targets": "misses a latency target", "budget": "goes over the budget",
          "cloud": "cannot be had in the cloud", "on-prem": "cannot be had on premises",
          "edge": "cannot be had at the edge"}

# A requirement as a column heading: the share of draws in which an option ...
MEETS = {"fits_memory": "holds the model", "fits": "holds the model", "meets_targets": "meets the latency targets",
         "budget": "within the budget", "cloud": "can be had in the cloud", "on-prem": "can be had on premises",
         "edge": "can be had at the edge"}


def upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def error_words(n: int) -> str:
    """The sampling error of a share from n draws (its largest standard error, at 50 %)."""
    return f"accurate to about ±{100 * math.sqrt(0.25 / n):.1f} points (one standard error) from the sampling alone"


def regret_words(r: Results, dec: Decision) -> str:
    """How often the recommendation fails each requirement and which option meets them more often; what it costs
    where another option would have been better."""
    s = spread_for(r, dec)
    if s is None or s.subject is None:
        return ""
    parts = []
    mine = s.option(s.subject)
    misses = [f"{MISSES.get(q, f'fails {q}')} in {share(1 - p)}" for q, p in (mine.meets if mine else ()) if p < 1]
    if misses:
        parts.append(f"{upper(label(r, dec, s.subject))} {joined(misses)} of the cases")
        safer = max(s.options, key=lambda o: o.meets_probability)
        if mine is not None and safer.meets_probability > mine.meets_probability:
            often = "in every case" if safer.meets_probability == 1 else f"in {share(safer.meets_probability)}"
            parts[-1] += f"; {label(r, dec, safer.option)} meets every requirement {often}{dearer(dec, safer.option)}"
    if s.behind > 0 and s.behind_regret is not None:
        verb, more = ("gives", "less") if dec.maximise else ("costs", "more")
        parts.append(f"In the {share(s.behind)} of cases where {label(r, dec, s.subject)} qualifies but another "
                     f"option is {'better' if dec.maximise else 'cheaper'}, it {verb} on average "
                     f"{estimate(s.behind_regret, dec.unit)} {more} (over every case where it qualifies: "
                     f"{estimate(s.expected_regret, dec.unit)})")
    tied = round(mine.meets_probability - mine.win_probability - s.behind, 9) if mine is not None else 0.0
    if tied >= 0.005:                   # the shares add up (a signer found 89 % − 80 % ≠ 7 %; then 1 % tied)
        parts.append(f"In {share(tied)} of the cases it ties another option at the same {objective_name(dec)}, "
                     "counted to the one listed first")
    return ". ".join(parts) + "." if parts else ""


def objective_name(dec: Decision) -> str:
    return "cost" if "USD" in dec.unit else "value"


def estimate(value: float, unit: str) -> str:
    """An average over sampled cases, to three significant digits: '$501/month', not '$501.10/month' (its
    sampling error is larger than a cent)."""
    return human(float(f"{value:.3g}"), unit, digits=3, cents=False)


def dearer(dec: Decision, oid: str) -> str:
    """', at $2,710/month more' (or less; 'a lower ...' where more is better): the safer option against the
    recommendation, as ranked."""
    best, other = dec.best, dec.option(oid)
    if best is None or other is None or best.value is None or other.value is None:
        return ""
    gap = other.value - best.value
    worse = gap < 0 if dec.maximise else gap > 0
    return f", at {shown_gap(other.value, best.value, dec.unit)} {'more' if worse else 'less'}" if "USD" in dec.unit \
        else ""


def driver_words(r: Results, key: str, short: bool = False) -> str:
    """A driver in words: an input ('the Instinct MI300X hourly rental price') or a group with its inputs ('the
    nvidia-prices group (H100 and H200 hourly rental price, moving together)'; `short`: 'the 2 inputs
    grouped as nvidia-prices (moving together)')."""
    if not key.startswith("group "):
        return input_words(r, key) if key in r.inputs else key
    group = key[6:]
    members = [k for rg, k in r.simulation.cells if rg.group == group]
    if short:
        return f"the {len(members)} inputs grouped as {group} (moving together)"
    return f"the {group} group ({joined([input_words(r, k).removeprefix('the ') for k in members])}, moving together)"


def joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def lead_words(r: Results, dec: Decision, subject: str) -> str:
    """What a driver's correlation is taken with: 'how much cheaper Instinct MI300X on demand is than the next best
    option'."""
    return f"how much {'better' if dec.maximise else 'cheaper'} {label(r, dec, subject)} is than the next best option"


def drivers_sentence(r: Results, dec: Decision, top: int = 3, short: bool = False) -> str:
    s = spread_for(r, dec)
    if s is None or not s.drivers or s.subject is None:
        return ""
    named = [d for d in s.drivers if abs(d.rank_correlation) >= 0.1][:top]
    if not named:
        return "No single uncertain input moves the decision much: the lead follows none of them closely."
    parts = [f"{driver_words(r, d.key, short)} ({signed(d.rank_correlation)}: the higher it is, the "
             f"{'larger' if d.rank_correlation > 0 else 'smaller'} the lead)" for d in named]
    return f"What moves the decision most, as the rank correlation of each input with {lead_words(r, dec, s.subject)} " \
           f"(from \u22121 to +1; 0: no effect): {'; '.join(parts)}."


def signed(x: float) -> str:
    return f"{x:+.2f}".replace("-", "\u2212")
