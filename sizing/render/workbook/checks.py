"""The Checks sheet: input ranges and sanity checks, and the master check."""

from __future__ import annotations

import math

from ... import formulas as F
from ...binding import sold_on_premises
from ...formulas.expr import FLEET_SEARCH, FLEET_SEARCH_C, all_of, floor

from .inputs import whole_servers_cell
from .labels import name_formula
from .base import (Book, CHECK_BAD, CHECK_OK, MASTER, REQUIREMENTS_MET, Sheet, header, put, put_text, rule_check,
                   rule_of, widths)
from .names import INPUTS_IN_RANGE, recommendation_name
from .sheet import coordinate, has_error


# -- Checks ------------------------------------------------------------------------------------
def within(x: F.Expr) -> F.Expr:
    return all_of(x >= 0, x <= 1)


# Checks that hold exactly in floating point too (a ratio recomputed from its parts would not).
SANITY = (
    ("delivered rate <= peak rate", ("delivered_rate", "peak_rate"), lambda q: q["delivered_rate"] <= q["peak_rate"]),
    ("attainable rate <= peak rate", ("attainable_rate", "peak_rate"),
     lambda q: q["attainable_rate"] <= q["peak_rate"]),
    ("transfer share within 0..1", ("transfer_share",), lambda q: within(q["transfer_share"])),
    ("padding efficiency within 0..1", ("padding_efficiency",), lambda q: within(q["padding_efficiency"])),
    ("step time > 0", ("step_time",), lambda q: q["step_time"] > 0),
    ("total time > 0", ("total_time",), lambda q: q["total_time"] > 0),
    ("latency > 0", ("latency",), lambda q: q["latency"] > 0),
    ("duration > 0", ("duration",), lambda q: q["duration"] > 0),
    ("demand consistent: average <= peak <= what the servers serve", ("demand_consistent",),
     lambda q: q["demand_consistent"]),
    (f"the fleet search found its fleet within {FLEET_SEARCH} extra replicas", ("servers", "servers_for_peak"),
     lambda q: q["servers"] - q["servers_for_peak"] < FLEET_SEARCH_C),
)
ERROR_SHEETS = ("Summary", "Calc", "Fleet", "Results", "Sweep", "Roofline")
FIRST_ROW = {"Summary": 5}      # below the Summary's master check line (counting it would be circular)       # every calculation a reviewer relies on


TYPED = "#typed"       # a blank cost cell's own value (the cell typed into), beside the value it reads as


def sanity_checks(b: Book) -> list[tuple[str, str, F.Expr]]:
    """(check, scope, expression): each input within its range, rates below their peaks, shares in 0..1."""
    out = []
    for inp in [*b.r.inputs.values(), *b.r.blanks.values()]:
        if isinstance(inp.value.value, (int, float)):
            ref = F.Ref(inp.key, inp.role)
            for cond in rule_check(rule_of(inp), ref):
                text = f"input within its range: {F.to_text(cond)}"
                if inp.key in b.r.blanks and inp.role == "purchase" and not sold_on_premises(inp.entity):
                    text, cond = ("blank: the device is not sold for use on premises (its deployment)",
                                  F.blank_or(F.Ref(inp.key + TYPED, inp.role), F.Const(False)))
                elif inp.key in b.r.blanks or inp.key in b.typed:   # a cost cell passes blank (not offered
                    text, cond = f"{text}, or blank", F.blank_or(F.Ref(inp.key + TYPED, inp.role), cond)   # that way)
                else:                               # text typed over a number ("3.75 USD") fails, not passes
                    text, cond = f"{text}, a number", F.all_of(F.given(ref), cond)
                out.append((text, f"{inp.entity.kind} {inp.entity.id}: {inp.path}", cond))
    out += [*layout_checks(b)]
    for p in b.r.pairs:
        q = {x.d.id: F.Ref(x.key, x.d.id) for x in p.present()}
        for text, needs, check in SANITY:
            if all(n in q for n in needs):
                out.append((text, f"{p.workload} on {p.device}", check(q)))
    return out


def layout_checks(b: Book):
    """Inputs in range together, as the scenario language requires them: a training run's stated devices split into
    its tensor × pipeline ways (a finance reviewer typed 31 over a whole-servers count of 32 and read 15.5
    data-parallel ways, no check failing); the average traffic at most the peak (another typed 20 over a peak of 12
    and read 'no option meets every requirement', the inputs in range). An alternative's traffic follows the
    workload's: checked once."""
    for inp in b.r.inputs.values():
        peak = inp.key.removesuffix(".average") + ".peak"
        if inp.role == "average_traffic" and peak in b.r.inputs and not getattr(inp.entity, "alternative_of", ""):
            yield ("input within its range: the average traffic at most the peak",
                   f"{inp.entity.kind} {inp.entity.id}: traffic", F.Ref(inp.key, inp.role) <= F.Ref(peak, "peak"))
        stem = f"{inp.entity.kind}.{inp.entity.id}.parallel." if inp.role == "train_devices" else None
        ways = [F.Ref(stem + k, role) for k, role in (("tensor", "tensor_given"), ("pipeline", "pipeline"))
                if stem and stem + k in b.r.inputs]
        if ways:
            devices, replica = F.Ref(inp.key, inp.role), math.prod(ways[1:], start=ways[0])
            # a whole-servers count follows its run: what fails it is the tensor or pipeline ways (a finance reviewer
            # set tensor 3 and read the derived 32 blamed)
            said = "the devices of its whole servers split into whole replicas (tensor × pipeline ways): else " \
                "run sizing again with these ways" if whole_servers_cell(b, inp) else \
                "the devices split into whole replicas (tensor × pipeline ways)"
            yield (f"input within its range: {said}", f"{inp.entity.kind} {inp.entity.id}: {inp.path}",
                   floor(devices / replica) * replica >= devices)


DEMAND = "demand_consistent"


def checks_sheet(b: Book, ws: Sheet) -> None:
    put_text(ws, 1, 1, "Checks: TRUE is good; the master check covers the model's sanity", "sizing title")
    put_text(ws, 3, 1, "master check (model sanity)", "sizing section")
    put_text(ws, 4, 1, "requirements met (findings)", "sizing section")
    header(ws, 6, ["check", "scope", "status"])
    row = 7
    first = row
    held = []
    typed = {k + TYPED: cell for k, cell in b.typed.items()}
    untyped = {k + TYPED: math.nan if k in b.r.blanks else b.r.inputs[k].value.value      # as written: nothing typed
               for k in b.typed}                                                           # into a blank cost cell
    inputs_end = first
    for text, scope, e in sanity_checks(b):
        put_text(ws, row, 1, text)
        put_text(ws, row, 2, scope)
        held.append(bool(put(ws, row, 3, b.formula(e, typed), value_of=b.value(e, untyped)).cached))
        row += 1
        inputs_end = row if text.startswith(("input within its range", "blank:")) else inputs_end
    # the input ranges alone (no result in them): a recommendation is read only where they hold (a finance reviewer
    # typed a discount of 30 for 30 %: the master check failed, the recommendation read a negative cost)
    put_text(ws, 5, 1, "inputs within their ranges (the recommendation reads them)", "sizing section")
    b.define(INPUTS_IN_RANGE, put(ws, 5, 3, f"=AND(TRUE,C{first}:C{inputs_end - 1})" if inputs_end > first else
                                  "=TRUE()", value_of=all(held[:inputs_end - first])))
    for dec, cells, holds, how in b.reconciled:
        put_text(ws, row, 1, f"the money reconciles on Summary: {how}, every option")
        put_text(ws, row, 2, f"decision on {dec.workload}")
        held.append(holds)
        put(ws, row, 3, f"=AND(TRUE,{cells})", value_of=holds)     # TRUE: every option unpriced
        row += 1
    put_text(ws, row, 1, "no calculation error (#DIV/0!, #VALUE!, #NUM! ...) on "
             + ", ".join(t for t in ERROR_SHEETS if t in b.sheets))
    put_text(ws, row, 2, "every sheet")
    b.error_cell = ws.cell(row, 3)            # filled once every sheet is written (error_check)
    row += 1
    b.master = put(ws, 3, 3, f"=IFERROR(AND(C{first}:C{row - 1}),FALSE)", value_of=all(held))    # and no error
    b.define(MASTER, b.master)
    ranges = "C3:C5" + (f" C{first}:C{row - 1}" if row > first else "")
    row += 1
    put_text(ws, row, 1, "Requirements: a FALSE here is a finding about an option, not an error of the model",
             "sizing section")
    header(ws, row + 1, ["requirement", "scope", "status"])
    row += 2
    req_first = row
    met = []
    for p in b.r.pairs:
        for x in p.present():
            if x.d.requirement or x.d.id == DEMAND:          # an edited average above the peak is a finding
                put_text(ws, row, 1, f"{x.d.id}: {x.d.description}")
                put_text(ws, row, 2, f"{p.workload} on {p.device}")
                met.append(bool(b.put_formula(ws, row, 3, F.Ref(x.key, x.d.id)).cached))
                row += 1
    for i, dec in enumerate(b.r.decisions):     # what a decision requires of its options: budgets, an API's service
        for o, meets, _, _ in b.option_cells.get(recommendation_name(i), []):      # level (the README's line says so)
            put_text(ws, row, 1, "meets every requirement of its decision (budgets, a hosted API's stated service "
                                 "level included)")
            said = f"decision on {dec.workload}: "
            live = name_formula(b, dec, o, said)
            if live:
                put(ws, row, 2, live, value_of=said + b.option_name(dec, o))
            else:
                put_text(ws, row, 2, said + b.option_name(dec, o))
            met.append(bool(put(ws, row, 3, f"={meets}", value_of=b.cell_value(meets)).cached))
            row += 1
    b.define(REQUIREMENTS_MET, put(ws, 4, 3, f"=AND(C{req_first}:C{row - 1})" if met else "=TRUE()",
                                   value_of=all(met)))
    colour_booleans(ws, ranges + (f" C{req_first}:C{row - 1}" if row > req_first else ""))
    widths(ws, {"A": 60, "B": 36, "C": 10})
    ws.freeze = "A7"
    ws.repeat_rows = (6, 6)


def error_check(b: Book) -> None:
    """Count the error values over every calculation sheet: none, or the master check fails."""
    sheets = [b.sheets[t] for t in ERROR_SHEETS if t in b.sheets]
    parts = [f"SUMPRODUCT(ISERROR({ws.title}!A{FIRST_ROW.get(ws.title, 1)}:{coordinate(ws.max_row, ws.max_column)})*1)"
             for ws in sheets]
    errors = any(has_error(c.cached for c in ws.cells.values()) or any(has_error(c.values) for c in ws.columns)
                 for ws in sheets)
    put(b.sheets["Checks"], b.error_cell.row, b.error_cell.col, f"=({'+'.join(parts)})=0", value_of=not errors)
    b.master.cached = bool(b.master.cached) and not errors


def colour_booleans(ws: Sheet, ranges: str) -> None:
    """Green for TRUE, red for FALSE (`ranges` holds booleans only: a blank would read as FALSE)."""
    ws.condition(ranges, type="cell", criteria="==", value="TRUE", fill=CHECK_OK)
    ws.condition(ranges, type="cell", criteria="==", value="FALSE", fill=CHECK_BAD)
