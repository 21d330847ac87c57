"""The Summary sheet: per option what finance asks first (how it is paid, capital, running cost, a year, the
horizon, the unit cost), its requirements and rank; the recommendation; a reconciliation of the money."""

from __future__ import annotations

from typing import Any

from ... import alternatives, currency
from ...decide import MONTHLY, budget_key, pair_of
from ...formulas.common import HORIZON, MONTH, PER_MILLION, YEAR_MONTHS
from ...formulas.expr import constant
from ...results import Decision, Option

from .labels import put_name
from .base import (BOOLEAN, PER, Align, Book, MASTER, Sheet, header, money, option_value, put, put_text,
                   widths)
from .checks import colour_booleans
from .found import ATTENTION, HOLDS, found_rows
from .names import INPUTS_EDITED, recommendation_name
from .sheet import CHECK_BAD, column_letter

TOLERANCE = constant("tolerance", 1e-9, "", "relative difference two ways of computing one amount may show")
PER_UNIT = {"fleet": ("cost_per_million_tokens", "cost_per_million_requests"),
            "busy_hours": ("busy_hours_cost_per_million_tokens", "busy_hours_cost_per_million_requests"),
            "api": ("api_cost_per_million_tokens",)}
BASIS = {"busy_hours": "rent on demand", "api": "per token"}
CAVEAT = {"busy_hours": "a floor: billed for average use by the second, capacity assumed always to be had; devices: "
                        "those the peak needs; the average is billed",
          "api": "the provider's price and stated service level; its capacity is not modelled"}
PER_HOUR = lambda: money(2) + '##"/hour"'    # noqa: E731  ('$1.85/hour', an owned '$1.4553/hour': × devices × hours)
HOURLY = "hourly rate per device (owned: cost per device-hour)"
SERVING_CHECK = "money reconciles (the rules: under the table)"
UNPRICED = "n/a: no cost"      # unpriced or infeasible (no cost shown) reconciles nothing; the Checks AND skips text
HOURS = f"{MONTH.value / 3600:g} hours a month"     # 1/12 of a year of 365.25 days (written from the Constants)
RULE = {"fleet": f"capital / horizon + operating = monthly = devices × hourly rate × {HOURS}",
        "busy_hours": f"devices billed on average × hourly rate × {HOURS} = monthly",
        "api": "cost per million output tokens × million output tokens a month = monthly"}
RULE_OF = {"fleet": "held all month (own, rent, reserved)", "busy_hours": "on demand", "api": "hosted API"}
RUN_CHECK = "devices × hourly rate × duration = cost"
BEST = "the best option in (share of simulated cases, as built)"
DRAWN = "meets every requirement in (share of simulated cases, as built)"
SERVING = ["option", "cost basis", "devices (on demand: at the peak)", "devices billed on average (on demand)",
           HOURLY, "capital", "operating per month",
           "monthly cost (capital amortised)",
           "horizon (months)", "cost per year (capital amortised)", "total over the horizon",
           "cost per million output tokens", "meets requirements", "rank", SERVING_CHECK,
           "fails", "note"]
RUN = ["option", "cost basis", "devices", "cost of the run", "capital (bought up front)", "duration (days)",
       "meets requirements", "rank", "hourly rate per device", RUN_CHECK, "fails"]
SPELLED = {"own": "own (bought)", "rent": "rent (all hours)",
           "reserved": "reserved (rented all hours, commitment discount)"}     # the engine's word, spelled out
RUN_SPELLED = {"own": "own (bought: run's write-off share)", "rent": "rent (for the run)",
               "reserved": "reserved (the run's hours only)"}


OK, FAILED = "OK", "FAILED: see Checks"
AS_BUILT = "none: every figure is sizing's own for the scenario"
PROVISIONAL = "provisional: inputs edited; sizing, run on them, may find another batch and recommend otherwise"
EDITED = ("see Inputs, the last column. Every figure follows the edits, but batches sizing found and automatic "
          "alternatives were searched for the inputs as built: run sizing pull, then sizing build, to search again")


def summary_sheet(b: Book, ws: Sheet) -> None:
    b.serving = SERVING[:SERVING.index("rank")] + ([BEST, DRAWN] if b.r.simulation is not None else []) + \
        SERVING[SERVING.index("rank"):]
    put_text(ws, 1, 1, "Summary: each option's money, requirements and rank; every figure a formula", "sizing title")
    put_text(ws, 2, 1, f"amounts in {currency.code()}, the scenario's currency; nothing is converted", "sizing note")
    put_text(ws, 3, 1, "master check")
    put(ws, 3, 2, f'=IF({MASTER},"{OK}","{FAILED}")').bold = True      # its value is known once Checks is done
    put_text(ws, 4, 1, "inputs edited since built")
    b.define(INPUTS_EDITED, put(ws, 4, 2, f"={b.edited}", "0", value_of=0))
    put(ws, 4, 3, f'=IF({INPUTS_EDITED}=0,"{AS_BUILT}","{EDITED}")', value_of=AS_BUILT)
    ws.condition("B4", type="cell", criteria=">", value="0", fill=CHECK_BAD)
    row = 5
    if not b.r.decisions:
        put_text(ws, row, 1, "no decision: no workload computes the objective", "sizing note")
    b.reconciled = []
    chosen: list[tuple] = []         # each serving decision's recommended monthly cost and capital: cells, values
    for i, dec in enumerate(b.r.decisions):
        row = decision_summary(b, ws, row, dec, recommendation_name(i), chosen, i) + 1
    if len(chosen) > 1 and len(chosen) == len(b.r.decisions):
        together(b, ws, row, chosen)
    if b.found_status:                # beside the master check: an edit that moved a found batch off its rule
        terms = "&".join(f'IF({c}="{HOLDS}","",{c}&" ")' for c, _ in b.found_status)
        moved = " ".join(x for _, x in b.found_status if x != HOLDS)
        put(ws, 3, 3, f'=IF({terms}="","","{ATTENTION}"&TRIM({terms}))', value_of=ATTENTION + moved if moved
            else "").bold = True
        ws.condition("C3", type="text", criteria="begins with", value=ATTENTION, fill=CHECK_BAD)
    widths(ws, {"A": 46, "B": 16})
    ws.widths |= {c: 15 for c in range(3, len(b.serving) - 1)} | {len(b.serving) - 1: 30, len(b.serving): 50}
    ws.freeze = "B1"
    ws.repeat_columns = "A:A"
    if any(is_serving(b, dec) for dec in b.r.decisions):     # printed in three pages of columns, each beside the
        ws.column_breaks = [b.serving.index("horizon (months)") + 1, b.serving.index("fails") + 1]
        ws.print_scale = 54                                   # options' names: the money, the verdicts, the notes


def is_serving(b: Book, dec: Decision) -> bool:
    """Whether a decision's options are priced by the month (a serving fleet), not by the run."""
    return any((p := pair_of(b.r, dec, o)) and "monthly_cost" in p.values for o in dec.options)


def decision_summary(b: Book, ws: Sheet, row: int, dec: Decision, name: str, chosen: list | None = None,
                     which: int = 0) -> int:
    serving = is_serving(b, dec)
    put_text(ws, row, 1, f"Decision: {decision_title(b, dec)}", "sizing section")
    put_text(ws, row + 1, 1, "recommendation")
    rec = b.named[name]
    put(ws, row + 1, 2, f"={name}", value_of=rec.cached).bold = True
    put(ws, row + 1, 3, f'=IF({INPUTS_EDITED}>0,"{PROVISIONAL}","")', value_of="")    # a finance reviewer: mark it
    ws.condition(f"C{row + 1}", type="text", criteria="begins with", value=PROVISIONAL[:11], fill=CHECK_BAD)
    put_text(ws, row + 2, 1, "ranked by")
    put_text(ws, row + 2, 2, b.objective.get(name, ""))
    labels = b.serving if serving else RUN
    if serving and not any(option_value(b, dec, o, "cost_per_million_tokens")[0] for o in dec.options):
        labels = [("cost per million requests" if x == "cost per million output tokens" else x) for x in labels]
    header(ws, row + 3, labels)
    ws.heights[row + 3] = 60
    for c in range(1, len(labels) + 1):
        ws.cell(row + 3, c).align = Align("right" if c > 2 else None, "bottom", wrap=True)
    first, held = row + 4, []
    ranked = {o.id: (o.rank or len(dec.options) + 1, k) for k, o in enumerate(dec.options)}
    cells = sorted(b.option_cells.get(name, []), key=lambda c: ranked.get(c[0].id, (len(dec.options) + 1, 0)))
    for k, (o, meets, rank, fails) in enumerate(cells):            # as the report ranks them; the rank stays live
        held.append((serving_row if serving else run_row)(b, ws, first + k, dec, o, meets, rank))
        put(ws, first + k, labels.index("fails") + 1, f'=IF({fails}="","",{fails})',
            value_of=b.cell_value(fails) or "")
    last = first + len(b.option_cells.get(name, [])) - 1
    if last >= first:
        meets = column_letter(labels.index("meets requirements") + 1)
        colour_booleans(ws, f"{meets}{first}:{meets}{last}")
        check = column_letter(labels.index(SERVING_CHECK if serving else RUN_CHECK) + 1)
        colour_booleans(ws, f"{check}{first}:{check}{last}")
        b.reconciled.append((dec, f"Summary!{check}{first}:{check}{last}", all(held),
                             ("; ".join(f"{RULE_OF[v]}: {RULE[v]}" for v in RULE) if serving else
                              "devices × hourly rate × duration = cost of the run")))
        if serving:                                   # a blank row: the options' block ends above it
            ways = [v for v in RULE if any(o.variant == v for o, *_ in cells)]
            for k, v in enumerate(ways):               # each rule once (a note per row printed as a wall of text)
                said = f"money reconciles, {RULE_OF[v]}: {RULE[v]}"        # the month's hours from the Constants
                head, hours, tail = said.partition(f"{MONTH.value / PER[3600].value:g}")
                put(ws, last + 2 + k, 1, f'="{head}"&FIXED({b.constant(MONTH)}/{b.constant(PER[3600])},1)&"{tail}"'
                    if hours else said, style="sizing note", value_of=said)
            horizons(b, ws, last + 2 + len(ways), first, last)
            after = recommended(b, ws, last + 4 + len(ways), dec, row + 1, first, last, chosen, which)
            return found_rows(b, ws, after + 1, dec, name) - 1
    return last + 1


def horizons(b: Book, ws: Sheet, row: int, first: int, last: int) -> None:
    """A line, live, where the rows' horizons differ (an owned fleet's write-off period, else the default): their
    totals over the horizon do not compare (a finance reviewer set 36 months of renting beside 48 of owning)."""
    col = column_letter(b.serving.index("horizon (months)") + 1)
    cells = f"{col}{first}:{col}{last}"
    shown = {ws.cell(r, b.serving.index("horizon (months)") + 1).cached for r in range(first, last + 1)}
    default = f"FIXED({b.constant(HORIZON)}/{b.constant(MONTH)},0)"
    said = (f"the rows' horizons differ (an owned fleet's: its write-off period; else {HORIZON.value / MONTH.value:g} "
            "months): compare monthly costs, not totals over the horizon")
    head, _, tail = said.partition(f"{HORIZON.value / MONTH.value:g}")
    put(ws, row, 1, f'=IF(MAX({cells})<>MIN({cells}),"{head}"&{default}&"{tail}","")', style="sizing note",
        value_of=said if len(shown - {None}) > 1 else "")


def recommended(b: Book, ws: Sheet, row: int, dec: Decision, at: int, first: int, last: int, chosen: list | None,
                which: int) -> int:
    """Under a serving decision's options, the recommendation's monthly cost and capital, and each budget with what
    it uses and leaves, live (a finance reviewer found them on page one only). Returns the next free row."""
    col = {label: column_letter(k + 1) for k, label in enumerate(b.serving)}
    pick = lambda c: (f'=IFERROR(INDEX({c}{first}:{c}{last},MATCH($B${at},$A${first}:$A${last},0)),"")')  # noqa
    best = dec.best
    values = {"monthly cost (capital amortised)": best.value if best else None}
    p = pair_of(b.r, dec, best) if best else None
    values["capital"] = (p.values.get("capex") if best.variant == "fleet" else 0.0) if p else None
    cells = {}
    for k, (label, words) in enumerate((("monthly cost (capital amortised)", "recommendation: monthly cost"),
                                        ("capital", "recommendation: capital"))):
        put_text(ws, row + k, 1, words)
        put(ws, row + k, 2, pick(col[label]), money(), value_of=values[label])
        cells[label] = f"Summary!$B${row + k}"
    row += 2
    entity = b.r.scenario.decisions[which] if which < len(b.r.scenario.decisions) else None
    for field, words, used in (("monthly", "monthly", "monthly cost (capital amortised)"), ("capex", "capital",
                                                                                           "capital")):
        key = budget_key(entity, field) if entity is not None else ""
        if key not in b.names:
            continue
        limit = b.r.inputs[key].value.value
        spent = values[used]
        put_text(ws, row, 1, f"budget ({words})")
        put(ws, row, 2, f"={b.names[key]}", money(), value_of=limit)
        put_text(ws, row + 1, 1, f"budget ({words}) left after the recommendation")
        put(ws, row + 1, 2, f'=IF(ISNUMBER({cells[used]}),B{row}-{cells[used]},"")', money(),
            value_of=limit - spent if isinstance(spent, (int, float)) else None)
        row += 2
    if chosen is not None and all(isinstance(v, (int, float)) for v in values.values()):
        chosen.append((cells["monthly cost (capital amortised)"], cells["capital"],
                       values["monthly cost (capital amortised)"], values["capital"]))
    return row


NO_TOTAL = "n/a: a decision has no recommendation"


def together(b: Book, ws: Sheet, row: int, chosen: list[tuple]) -> None:
    """Every decision's recommendation together: monthly cost and capital, as page one adds them up."""
    put_text(ws, row, 1, f"The {len(chosen)} recommendations together", "sizing section")
    for k, (words, i) in enumerate((("monthly cost (capital amortised)", 0), ("capital", 1))):
        put_text(ws, row + 1 + k, 1, words)
        cells = [c[i] for c in chosen]        # a decision left without a recommendation (an edit) leaves no total
        put(ws, row + 1 + k, 2, f'=IF(COUNT({",".join(cells)})={len(cells)},{"+".join(cells)},"{NO_TOTAL}")',
            money(), value_of=sum(c[2 + i] for c in chosen))


def ref(ws: Sheet, row: int, col: int, b: Book, dec: Decision, o: Option, qid: str, fmt: str) -> Any:
    name, v = option_value(b, dec, o, qid)
    if name:
        put(ws, row, col, f"={name}", fmt, value_of=v)
    return v


def serving_row(b: Book, ws: Sheet, row: int, dec: Decision, o: Option, meets: str, rank: str) -> bool:
    """One option's money; returns whether it reconciles by the rule of its way of paying (RULE: a fleet's capital /
    horizon + operating = monthly = devices × hourly rate × hours a month; on demand, the devices billed on average ×
    the hourly rate; a hosted API, its cost per million output tokens × those it serves a month)."""
    col = {label: column_letter(k + 1) for k, label in enumerate(b.serving)}
    at = {label: k + 1 for k, label in enumerate(b.serving)}
    put_name(b, ws, row, 1, dec, o)
    fleet = o.variant == "fleet"
    devices = billed = rate = None
    if fleet:
        basis(ws, row, b, dec, o)
        devices = ref(ws, row, at["devices (on demand: at the peak)"], b, dec, o, "fleet_devices", "#,##0")
        rate = hourly(ws, row, at[HOURLY], b, *option_value(b, dec, o, "hourly_rate"))
        capital = ref(ws, row, at["capital"], b, dec, o, "capex", money())
        operating = ref(ws, row, at["operating per month"], b, dec, o, "opex_monthly", money())
    else:
        put_text(ws, row, 2, BASIS[o.variant])
        if o.variant == "busy_hours":                      # the devices the peak needs, and the average billed
            ref(ws, row, at["devices (on demand: at the peak)"], b, dec, o, "fleet_devices", "#,##0")
            billed = ref(ws, row, at["devices billed on average (on demand)"], b, dec, o, "busy_hours_devices",
                         "#,##0.000")
            key = f"device.{o.device}.price"
            given = b.r.inputs.get(key)
            rate = hourly(ws, row, at[HOURLY], b, b.names.get(key),
                          given.value.value if given is not None else None)
        operating = ref(ws, row, at["operating per month"], b, dec, o, MONTHLY[o.variant], money())
        capital = 0.0 if isinstance(operating, (int, float)) else None      # renting needs none; unpriced: blank
        put(ws, row, at["capital"], f'=IF(ISNUMBER({col["operating per month"]}{row}),0,"")', money(),
            value_of=capital)
    if o.variant in CAVEAT:
        put_text(ws, row, at["note"], CAVEAT[o.variant])
    monthly = ref(ws, row, at["monthly cost (capital amortised)"], b, dec, o, MONTHLY[o.variant], money())
    amortisation = f"device.{o.device}.costs.amortisation"
    written_off = b.r.inputs.get(amortisation) or b.r.blanks.get(amortisation)      # a blank reads as 3 years
    if fleet and written_off is not None:
        seconds, text = written_off.value.value, b.names[amortisation]
    else:
        seconds, text = HORIZON.value, b.constant(HORIZON)
    months = seconds / MONTH.value
    put(ws, row, at["horizon (months)"], f"={text}/{b.constant(MONTH)}", "#,##0", value_of=months)
    priced = all(isinstance(v, (int, float)) for v in (capital, operating, monthly))
    mon, cap, opex, hor = (f"{col[x]}{row}" for x in ("monthly cost (capital amortised)", "capital",
                                                      "operating per month", "horizon (months)"))
    put(ws, row, at["cost per year (capital amortised)"], f'=IF(ISNUMBER({mon}),{mon}*{b.constant(YEAR_MONTHS)},"")',
        money(), value_of=monthly * YEAR_MONTHS.value if priced else None)
    put(ws, row, at["total over the horizon"], f'=IF(ISNUMBER({mon}),{cap}+{opex}*{hor},"")',
        money(), value_of=capital + operating * months if priced else None)
    unit = next((q for q in PER_UNIT[o.variant] if option_value(b, dec, o, q)[0]), None)
    per_unit = ref(ws, row, at["cost per million output tokens"], b, dec, o, unit, money(2)) if unit else None
    put(ws, row, at["meets requirements"], f"={meets}", BOOLEAN, value_of=b.cell_value(meets))
    put(ws, row, at["rank"], f"={rank}", value_of=b.cell_value(rank))
    if DRAWN in at:                               # filled once the Uncertainty sheet has its figure (drawn_from)
        b.drawn_cells.append((row, at[BEST], dec.id, o.id))
    hours = f"{b.constant(MONTH)}/{b.constant(PER[3600])}"
    near = lambda formula, got: (f"ABS({formula}-{mon})<={b.constant(TOLERANCE)}*ABS({mon})",     # noqa: E731
                                 not priced or abs(got - monthly) <= TOLERANCE.value * abs(monthly))
    if fleet:
        parts = [near(f"{cap}/{hor}+{opex}", (capital or 0) / months + (operating or 0)),
                 near(f"{col['devices (on demand: at the peak)']}{row}*{col[HOURLY]}{row}*{hours}",
                      (devices or 0) * (rate or 0) * MONTH.value / PER[3600].value)]
    elif o.variant == "busy_hours":
        parts = [near(f"{col['devices billed on average (on demand)']}{row}*{col[HOURLY]}{row}"
                      f"*{hours}", (billed or 0) * (rate or 0) * MONTH.value / PER[3600].value)]
    else:
        name, tokens = option_value(b, dec, o, "tokens_per_month")
        parts = [near(f"{col['cost per million output tokens']}{row}*{name}/{b.constant(PER_MILLION)}",
                      (per_unit or 0) * (tokens or 0) / PER_MILLION.value)] if name and unit else []
    test = parts[0][0] if len(parts) == 1 else f"AND({','.join(f for f, _ in parts)})" if parts else "TRUE"
    holds = all(h for _, h in parts)
    put(ws, row, at[SERVING_CHECK], f'=IF(ISNUMBER({mon}),{test},"{UNPRICED}")', BOOLEAN,
        value_of=holds if priced else UNPRICED)
    return holds


def decision_title(b: Book, dec: Decision) -> str:
    """What a decision settles: its title, else its workload's, with the alternatives the scenario writes ('Full
    fine-tuning, or its alternative LoRA adapters ...': a finance reviewer read the LoRA rows under 'Full
    fine-tuning')."""
    w = b.r.scenario.workloads.get(dec.workload)
    title = dec.title or (w.get("title") if w else "") or dec.workload
    alts = [a.get("title") if "title" in alternatives.given_by(b.r.scenario.workloads, a) else a.alternative
            for a in alternatives.of(b.r.scenario.workloads, dec.workload) if not a.automatic]
    if dec.title or not alts:
        return title
    return f"{title}, or its alternative{'s' if len(alts) > 1 else ''} {', '.join(alts)}"


def hourly(ws: Sheet, row: int, col: int, b: Book, name: str | None, per_second: Any) -> Any:
    """An hourly rate per device from the rate per second the cell `name` holds (blank where it holds none)."""
    if not name:
        return None
    rate = per_second * PER[3600].value if isinstance(per_second, (int, float)) else None
    put(ws, row, col, f'=IF(ISNUMBER({name}),{name}*{b.constant(PER[3600])},"")', PER_HOUR(), value_of=rate)
    return rate


def basis(ws: Sheet, row: int, b: Book, dec: Decision, o: Option, run: bool = False) -> None:
    """How a fleet is paid for, in words: own (bought) or rent (all hours; a run's devices for the run)."""
    name, v = option_value(b, dec, o, "cost_basis")
    if name:
        words = RUN_SPELLED if run else SPELLED
        put(ws, row, 2, spelled(name, words), value_of=words.get(v, v))


def spelled(name: str, words: dict[str, str]) -> str:
    """A formula giving the words for the cell `name` holds, or its own text for any other word: the same words the
    written value is read from."""
    out = name
    for word, text in reversed(words.items()):
        out = f'IF({name}="{word}","{text}",{out})'
    return f"={out}"


def run_row(b: Book, ws: Sheet, row: int, dec: Decision, o: Option, meets: str, rank: str) -> bool:
    """One run's money; returns whether it reconciles (devices × hourly rate × duration = cost of the run). Bought,
    its capital beside it: the cost of the run is only its hours' share of the write-off."""
    at = {label: k + 1 for k, label in enumerate(RUN)}
    col = {label: column_letter(k) for label, k in at.items()}
    put_name(b, ws, row, 1, dec, o)
    basis(ws, row, b, dec, o, run=True)
    devices = ref(ws, row, at["devices"], b, dec, o, "devices", "#,##0")
    cost = ref(ws, row, at["cost of the run"], b, dec, o, "cost", money())
    ref(ws, row, at["capital (bought up front)"], b, dec, o, "capex", money())
    name, v = option_value(b, dec, o, "duration")
    day, hour = PER[86400], PER[3600]
    if name:
        put(ws, row, at["duration (days)"], f"={name}/{b.constant(day)}", "#,##0.000",
            value_of=v / day.value if v is not None else None)
    put(ws, row, at["meets requirements"], f"={meets}", BOOLEAN, value_of=b.cell_value(meets))
    put(ws, row, at["rank"], f"={rank}", value_of=b.cell_value(rank))
    rate_name, rate = option_value(b, dec, o, "hourly_rate")
    hourly(ws, row, at["hourly rate per device"], b, rate_name, rate)
    priced = all(isinstance(x, (int, float)) for x in (devices, cost, rate, v))
    holds = not priced or abs(devices * rate * v - cost) <= TOLERANCE.value * abs(cost)
    c, d, e, h = (f"{col[k]}{row}" for k in ("devices", "cost of the run", "duration (days)", "hourly rate per device"))
    put(ws, row, at[RUN_CHECK], f"=IF(ISNUMBER({d}),ABS({c}*{h}*{e}*{b.constant(day)}/{b.constant(hour)}-{d})"
                                f'<={b.constant(TOLERANCE)}*ABS({d}),"{UNPRICED}")', BOOLEAN,
        value_of=holds if isinstance(cost, (int, float)) else UNPRICED)
    return holds


def drawn_from(b: Book, ws: Sheet) -> None:
    """Each option's shares of the simulated cases where it is the best option and where it meets every requirement,
    from the Uncertainty sheet (a finance reviewer read 'meets requirements: TRUE' beside a batch that misses a target
    in 11 % of them); values of the draws as built: they do not follow edits."""
    from .uncertainty import share_format
    for row, col, did, oid in b.drawn_cells:
        for k, (ref, share) in enumerate(b.drawn.get((did, oid), ((None, None), (None, None)))):
            if ref:
                put(ws, row, col + k, f"={ref}", share_format(share), value_of=share)
            else:
                put_text(ws, row, col + k, "n/a")
