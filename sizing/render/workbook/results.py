"""The Results sheet: headline figures and the live decisions."""

from __future__ import annotations

from typing import Any

from ... import alternatives, currency
from ... import formulas as F
from ... import kinds as K
from ...decide import VARIANTS, checks, entity_of, holder
from ...evaluate import Pair
from ...formulas.expr import all_of
from ...results import Decision, Option

from .labels import put_name
from .base import (Book, Sheet, by_workload, header, number_format, put, put_text, qkey, widths)
from .names import INPUTS_IN_RANGE, recommendation_name
from ..format import display_unit, numbers
from .sheet import column_letter
from .inputs import align_text, block_header
from .checks import colour_booleans


# -- Results -----------------------------------------------------------------------------------
def results_sheet(b: Book, ws: Sheet) -> None:
    put_text(ws, 1, 1, "Results: the headline figures in the units a person reads, and the decision",
             "sizing title")
    row = decision_block(b, ws, 3) + 1
    last = 3 + len(b.devices)
    for pairs in by_workload(b.r.pairs).values():
        cols = block_header(b, ws, row, pairs)
        row += 2
        for qid in K.get(pairs[0].kind).headline:
            d = next((x.d for p in pairs for x in p.cells() if x.d.id == qid), None)
            if d is not None:
                headline_row(b, ws, row, pairs, cols, d)
                row += 1
        row += 1
    widths(ws, {"A": 36, "B": 14})
    ws.widths |= {c: 18 for c in range(3, last)}
    ws.freeze = "C2"
    ws.repeat_columns = "A:B"


def headline_row(b: Book, ws: Sheet, row: int, pairs: list[Pair], cols: dict[int, int], d: Any) -> None:
    values = [p.values.get(d.id) for p in pairs]
    shown = display_unit(values, d.unit, d.display)
    put_text(ws, row, 1, d.label or d.id)       # the name a reader uses; Calc keeps the ids
    put_text(ws, row, 2, currency.label(shown.label) if numbers(values) else "")
    fmt = number_format(values, shown)
    for p in pairs:
        key = qkey(p, d.id)
        if key is not None:
            align_text(put(ws, row, cols[id(p)], "=" + b.scaled(b.names[key], shown.factor, shown.label), fmt,
                           value_of=shown_value(p.values.get(d.id), shown.factor)), values)


def shown_value(v: Any, factor: float) -> Any:
    """An engine value in a display unit (text and truth values as they are)."""
    return v / factor if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def decision_block(b: Book, ws: Sheet, row: int) -> int:
    """The live decisions, one after the other. Returns the next row."""
    if not b.r.decisions:
        put_text(ws, row, 1, "Decision", "sizing section")
        put_text(ws, row + 1, 1, "no decision: no workload computes the objective", "sizing note")
        return row + 2
    for i, dec in enumerate(b.r.decisions):
        row = one_decision(b, ws, row, dec, recommendation_name(i))
    return row


def one_decision(b: Book, ws: Sheet, row: int, dec: Decision, name: str) -> int:
    """One decision: each option's objective, requirements met, rank, what it fails; the recommendation."""
    entity = entity_of(b.r, dec)
    wid, qid = dec.workload, dec.quantity
    put_text(ws, row, 1, f"Decision: {dec.title}" if dec.title else "Decision", "sizing section")
    values = [o.value for o in dec.options]
    d = F.definition(qid)
    shown = display_unit(values, d.unit if d else "", d.display if d else None)
    better = "higher" if dec.maximise else "lower"
    put_text(ws, row + 1, 1, "objective")
    b.objective[name] = (f"{dec.objective} of workload {wid}: {better} is better; options must meet "
                         f"{', '.join(dec.require) or 'no requirement'}" +
                         "".join(f"; within its {BUDGET_WORDS.get(field, field)} budget (an input: Summary shows it "
                                 "and what is left)" for field in dec.budget
                                 if f"decision.{dec.id}.budget.{field}" in b.r.inputs))    # typed text: no amount
    #                                                        to go stale when the budget cell is edited
    put_text(ws, row + 1, 2, b.objective[name])
    columns = sorted(dec.options, key=lambda o: option_order(b, dec, o))
    n = len(columns)
    if not n:
        put_text(ws, row + 2, 1, f"no option: the options asked for do not price {qid}", "sizing note")
        put_text(ws, row + 3, 1, "recommendation", "sizing section")
        b.define(name, put_text(ws, row + 3, 3, NONE))
        return row + 5
    header(ws, row + 2, ["", "unit"] + [b.option_name(dec, o) for o in columns], right=range(3, 3 + n))
    for k, o in enumerate(columns):                 # live where it states its alternative's inputs
        put_name(b, ws, row + 2, 3 + k, dec, o)
    for k, label in enumerate((qid, "meets requirements", "eligible value", "rank", "fails")):
        put_text(ws, row + 3 + k, 1, label)
    put_text(ws, row + 3, 2, currency.label(shown.label))
    first, last = column_letter(3), column_letter(2 + n)
    eligible = f"${first}${row + 5}:${last}${row + 5}"
    fmt = number_format(values, shown)
    shown_values, meeting = [], []
    for k, o in enumerate(columns):
        col = 3 + k
        c = column_letter(col)
        p = holder(b.r, dec, o)
        key = qkey(p, o.quantity) if p else None
        v = shown_value(p.values.get(o.quantity), shown.factor) if key is not None else None
        if key is not None:
            put(ws, row + 3, col, "=" + b.scaled(b.names[key], shown.factor, shown.label), fmt, value_of=v)
        cs = checks(b.r, entity, o.workload or wid, o.device, o.variant)
        meets = b.put_formula(ws, row + 4, col, all_of(*[x.expr for x in cs]) if len(cs) > 1 else
                              cs[0].expr if cs else F.Const(True)).cached
        shown_values.append(v if meets and isinstance(v, (int, float)) and not isinstance(v, bool) else None)
        meeting.append(bool(meets))
        put(ws, row + 5, col, f'=IF(AND({c}{row + 4},ISNUMBER({c}{row + 3})),{c}{row + 3},"")', fmt,
            value_of=shown_values[-1])
        order = 0 if dec.maximise else 1
        before = f"${first}${row + 5}:{c}{row + 5}"     # ties rank in column order, as the engine's stable sort
        put(ws, row + 6, col, f'=IF(NOT({INPUTS_IN_RANGE}),"{UNRANKED_INPUT}",IF(ISNUMBER({c}{row + 5}),'
                              f'RANK({c}{row + 5},{eligible},{order})+COUNTIF({before},{c}{row + 5})-1,'
                              f'{unranked(b, o, f"{c}{row + 4}")}))', value_of=None)
        b.option_cells.setdefault(name, []).append((o, f"Results!{c}{row + 4}", f"Results!{c}{row + 6}",
                                                     f"Results!{c}{row + 7}"))
        several = len({x.workload for x in cs}) > 1          # as fails_text words it
        failed = "; ".join(f"{failure(b, x)}{f' ({x.workload})' if several else ''}" for x in cs
                          if not b.value(x.expr))
        put(ws, row + 7, col, fails_text(b, cs), value_of=failed)
    places = ranks(shown_values, dec.maximise)      # known once every column is: the rank cells' values
    for k, place in enumerate(places):
        ws.cell(row + 6, 3 + k).cached = place if place is not None else why_unranked(b, columns[k], meeting[k])
    best = "MAX" if dec.maximise else "MIN"
    labels = f"${first}${row + 2}:${last}${row + 2}"
    put_text(ws, row + 8, 1, "recommendation", "sizing section")
    winner = next((b.option_name(dec, o) for o, place in zip(columns, places) if place == 1), NONE)
    rec = put(ws, row + 8, 3, f'=IF(NOT({INPUTS_IN_RANGE}),"{OUT_OF_RANGE}",IF(COUNT({eligible})=0,"{NONE}",'
                              f'INDEX({labels},MATCH({best}({eligible}),{eligible},0))))', value_of=winner)
    rec.bold = True
    b.define(name, rec)
    colour_booleans(ws, f"C{row + 4}:{last}{row + 4}")
    return row + 10


NONE = "none: no option meets every requirement"
OUT_OF_RANGE = "none: an input is out of its range (see Checks)"
UNRANKED_INPUT = "none: an input is out of range"      # a rank (a reviewer read -$3.5 million ranked first)
BUDGET_WORDS = {"capex": "capital", "total": "total"}


def ranks(values: list, maximise: bool) -> list[int | None]:
    """The spreadsheet's rank of each eligible value (RANK, ties in column order as COUNTIF breaks them)."""
    out = []
    for i, v in enumerate(values):
        if v is None:
            out.append(None)
            continue
        others = [x for x in values if x is not None]
        better = sum(1 for x in others if (x > v if maximise else x < v))
        out.append(better + 1 + sum(1 for x in values[:i] if x == v))
    return out


def option_order(b: Book, dec: Decision, o: Option) -> tuple[int, int]:
    """Columns in the engine's order of consideration (fleets, busy hours, API), so ties rank alike."""
    wids = [dec.workload] + [w.id for w in alternatives.of(b.r.scenario.workloads, dec.workload)]
    return (VARIANTS.index(o.variant), wids.index(o.workload) if o.workload in wids else 0,
            b.devices.index(o.device) if o.device in b.devices else 0)


UNPRICED = "not priced"          # meets every requirement, but a blank price or purchase leaves nothing to rank
UNFIGURED = "no figure: see Checks"    # meets them, priced, yet no figure (an edited input the engine would refuse)
OFFER_ROLES = {"fleet": ("price", "costs.purchase"), "busy_hours": ("price",)}   # the hosted API: none


def offer_keys(b: Book, o: Option) -> list[str]:
    """The cost cells that offer an option's device on its basis: the price (on demand), the price or the purchase
    (a fleet)."""
    return [k for role in OFFER_ROLES.get(o.variant, ()) if (k := f"device.{o.device}.{role}") in b.names]


def unranked(b: Book, o: Option, meets: str) -> str:
    """What an option's rank cell says when it has no figure to rank: nothing when it fails a requirement (its
    `fails` cell says which), 'not priced' when its cost cells are blank, else 'no figure: see Checks'."""
    keys = offer_keys(b, o)
    if not keys:                        # nothing to price (a hosted API): no figure is not a missing price
        return f'IF({meets},"{UNFIGURED}","")'
    offered = f"OR({','.join(f'ISNUMBER({b.names[k]})' for k in keys)})"
    return f'IF({meets},IF({offered},"{UNFIGURED}","{UNPRICED}"),"")'


def why_unranked(b: Book, o: Option, meets: bool) -> str:
    """The rank cell's value as written, where the option has no figure (unranked's formula, evaluated)."""
    keys = offer_keys(b, o)
    given = [i.value.value for k in keys if (i := b.r.inputs.get(k)) is not None]
    offered = not keys or any(isinstance(v, (int, float)) and v == v for v in given)
    return "" if not meets else UNFIGURED if offered else UNPRICED


# What a failed requirement is called in a `fails` cell (the id where none is given here).
FAILURES = {"fits": "does not fit", "meets_targets": "misses a target", "demand_consistent": "demand inconsistent",
            "feasible_fleet": "no feasible fleet"}


WHERE = {"available_cloud": "not in the cloud", "available_on_prem": "not on-prem", "available_edge": "not at the edge",
         "owned_fleet": "not bought"}         # short: a `fails` formula lists them all


def failure(b: Book, x) -> str:
    """A failed requirement (a Check) in words."""
    return failure_name(x.requirement, x.quantity,
                        any(p.workload == x.workload and p.kind == "train" for p in b.r.pairs))


def failure_name(requirement: str, quantity: str, train: bool = False) -> str:
    """A failed requirement in words, as the report's options table says it: a training run's target is its
    deadline; a budget is exceeded; a deployment is where it cannot run (a finance reviewer read
    'busy_hours_in_cloud (code)')."""
    if quantity in ("meets_targets", "api_meets_targets") and train:
        return "misses the deadline"
    if requirement == "budget":
        return "over budget"
    if quantity.endswith("_in_cloud"):
        return "cloud only"
    if quantity in WHERE:
        return WHERE[quantity]
    if quantity == "api_meets_targets":
        return "misses a target"
    return FAILURES.get(quantity, quantity.replace("_", " "))


def fails_text(b: Book, cs: list) -> str | None:
    """A live list of the requirements failed, separated by '; ' ('misses a target; cloud only': a finance reviewer
    read 'misses a target cloud only'), fixed words and slugs only (no user text inside a formula); each names its
    workload where the option's checks span several (a formula stays short enough to read)."""
    several = len({x.workload for x in cs}) > 1
    terms = [f'IF({F.to_excel(x.expr, lambda ref: b.names[ref.key])},"","; {failure(b, x)}'
             f'{f" ({x.workload})" if several else ""}")' for x in cs]
    return f'=REPLACE({"&".join(terms)},1,2,"")' if terms else None
