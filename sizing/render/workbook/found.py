"""Summary: whether each batch sizing found still follows the rule it was found by, live. The workbook does not search
again; a finance reviewer who edited the stated batch to 30, or tightened a target to 45 ms, still saw the found
options ranked and the master check OK. These rows turn FALSE then (a warning: editing is a legitimate what-if, so
the master check does not require them)."""

from __future__ import annotations

from ...batch_search import GAIN, TIGHT, VARIANTS, allowance, kind_of, latencies
from ...decide import MONTHLY, pair_of
from ...results import Decision, Option
from ...formulas.expr import constant
from .labels import PERCENT, put_name
from .names import INPUTS_IN_RANGE
from .base import BOOLEAN, Align, Book, Sheet, header, option_value, put, put_text
from .checks import colour_booleans
from .sheet import column_letter


def percent(share: float) -> str:
    """A share as shown_percent writes it: '5 %'."""
    return f"{share * 100:.0f} %"


def shown_percent(b: Book, share) -> str:
    """A formula's text of a constant share in whole percent: FIXED(k.found_batch_saving*k.percent,0)&" %"."""
    return f'FIXED({b.constant(share)}*{b.constant(PERCENT)},0)&" %"'


SAVING = constant("found_batch_saving", GAIN, "", "the least a batch sizing finds must save against the stated "
                  "batch")
SPARE = constant("found_batch_spare", TIGHT, "", "the share of each latency target a batch sizing finds leaves to "
                 "spare (unless the device's published runs are slower)")
LABELS = ["option at the found batch", "batch found by sizing", "share of each latency target it may use",
          "closest latency, as a share of its target", "within the share it may use",
          f"{percent(GAIN)} cheaper than the stated batch", "still by its rule", "why that share"]
HOLDS = "every found batch follows its rule"
UNJUDGED = "not judged: input out of range"    # not 'an edit moved a found batch' (a
# reviewer's negative price read as a batch moved off its rule)
MOVED = "an edit moved a found batch off its rule: see below"
MOVED_CHOSEN = "an edit moved the recommended batch off its rule: run sizing again"
ATTENTION = "found batches: "          # beside the master check, then what the block says


def found_rows(b: Book, ws: Sheet, row: int, dec: Decision, name: str) -> int:
    """Under a serving decision, a row per found batch's option: is each latency within the share of its target
    the batch was found with, and does it still save GAIN against the same way of paying at the stated batch?
    Returns the next free row (`row` itself where the decision has no found batch); the block's status cell joins
    `b.found_status`, for the line beside the master check."""
    cells = {o.id: (meets, o) for o, meets, _, _ in b.option_cells.get(name, [])}
    stated = {(o.device, o.variant): (meets, o) for meets, o in cells.values() if o.workload == dec.workload}
    found = [(meets, o) for meets, o in cells.values() if o.workload and o.workload != dec.workload
             and o.variant in VARIANTS and (w := b.r.scenario.workloads.get(o.workload)) is not None
             and (o.device, o.variant) in getattr(w, "found_as", ())]
    if not found:
        return row
    kind = kind_of(b.r, dec.workload) or ""
    put_text(ws, row, 1, "Batches found by sizing: still by the rule they were found by?", "sizing section")
    row += 1                                  # the status on its own row: the heading printed cut off beside it
    saving_text = shown_percent(b, SAVING)      # the constants' words follow them when edited
    put(ws, row + 1, 1, '="sizing ranks a batch it found where each latency stays within a share of its target and '
                        f'it costs "&{saving_text}&" less than the stated batch."', style="sizing note",
        value_of="sizing ranks a batch it found where each latency stays within a share of its target and it costs "
                 f"{percent(GAIN)} less than the stated batch.")
    for k, line in enumerate(("The workbook does not search again: where a row reads FALSE, an edit (the stated "
                              "batch, a target, a price) moved it off that rule;",
                              "its option stays ranked as edited: run sizing on the edited scenario to search "
                              "again.")):        # lines a printed page holds
        put_text(ws, row + 2 + k, 1, line, "sizing note")
    top = row + 4
    header(ws, top, LABELS)
    put(ws, top, 6, f'={saving_text}&" cheaper than the stated batch"', value_of=LABELS[5]).bold = True
    ws.heights[top] = 45
    for c in range(1, len(LABELS) + 1):
        ws.cell(top, c).align = Align(None, "bottom", wrap=True)
    first = top + 1
    held = {}
    for k, (meets, o) in enumerate(sorted(found, key=lambda x: (x[1].rank or 10 ** 6, x[1].id))):
        held[o.id] = found_row(b, ws, first + k, dec, o, stated.get((o.device, o.variant)), kind)
    last = first + len(found) - 1
    for c in (5, 6, 7):
        colour_booleans(ws, f"{column_letter(c)}{first}:{column_letter(c)}{last}")
    rule = f"G{first}:G{last}"
    status = f'=IF(NOT({INPUTS_IN_RANGE}),"{UNJUDGED}",IF(AND({rule}),"{HOLDS}",IF(SUMPRODUCT((A{first}:A{last}=' \
             f'{name})*NOT({rule})),"{MOVED_CHOSEN}","{MOVED}")))'
    off = [k for k, ok in held.items() if not ok]
    said = HOLDS if not off else MOVED_CHOSEN if dec.best and dec.best.id in off else MOVED
    put(ws, row, 1, status, value_of=said).bold = True
    b.found_status.append((f"A{row}", said))
    return last + 2


def found_row(b: Book, ws: Sheet, row: int, dec: Decision, o: Option, stated: tuple[str, Option] | None,
              kind: str) -> bool:
    """One found batch's option: its latencies against its share of the targets, its cost against the stated
    batch's (where that still meets the requirements and is priced). Returns whether the rule holds."""
    w = b.r.scenario.workloads[o.workload]
    written = int(b.r.scenario.workloads[dec.workload].get("batch"))
    batch, was = (b.names[f"workload.{x}.batch"] for x in (o.workload, dec.workload))
    put_name(b, ws, row, 1, dec, o)
    put(ws, row, 2, f'={batch}&" (stated: "&{was}&")"', value_of=f"{int(w.get('batch'))} (stated: {written})")
    allowed = allowance(b.r, o.device, kind)
    if allowed.median is None:          # the rule's constant; a device's median speed is a figure of its records
        put(ws, row, 3, f"=1-{b.constant(SPARE)}", "0.0%", value_of=allowed.share)
    else:
        put(ws, row, 3, allowed.share, "0.0%", value_of=allowed.share)
    if allowed.median is None:
        put(ws, row, 8, f'={shown_percent(b, SPARE)}&" to spare"', value_of=f"{percent(TIGHT)} to spare")
    else:
        put_text(ws, row, 8, f"median of {allowed.runs} published runs")
    p = pair_of(b.r, dec, o)
    shares, closest = [], 0.0
    for x in latencies(b.r, o.workload, p.values.get, kind):
        cell = f"{p.workload}/{p.device}/{x.qid}"
        if x.key in b.names and cell in b.names:
            shares.append(f"{b.names[cell]}/{b.names[x.key]}")
            closest = max(closest, x.value / x.target)
    put(ws, row, 4, f"=MAX({','.join(shares)})" if shares else "=0", "0.0%", value_of=closest)
    within = closest <= allowed.share
    put(ws, row, 5, f"=D{row}<=C{row}", BOOLEAN, value_of=within)
    cheaper = saving(b, ws, row, dec, o, stated)
    put(ws, row, 7, f"=AND(E{row},F{row})", BOOLEAN, value_of=within and cheaper)
    return within and cheaper


def saving(b: Book, ws: Sheet, row: int, dec: Decision, o: Option, stated: tuple[str, Option] | None) -> bool:
    """Column F: the found batch's monthly cost under (1 − GAIN) × the stated batch's in the same way of paying,
    where the stated batch meets the requirements and is priced (else there is nothing to save against)."""
    mine = option_value(b, dec, o, MONTHLY[o.variant])
    theirs = option_value(b, dec, stated[1], MONTHLY[o.variant]) if stated else (None, None)
    if mine[0] is None or theirs[0] is None:
        put(ws, row, 6, "=TRUE", BOOLEAN, value_of=True)
        return True
    meets = stated[0]
    holds = not (b.cell_value(meets) is True and isinstance(theirs[1], float)) or \
        (isinstance(mine[1], float) and mine[1] < (1 - GAIN) * theirs[1])
    less = f"{mine[0]}<(1-{b.constant(SAVING)})*{theirs[0]}"
    put(ws, row, 6, f"=IF(AND({meets}=TRUE,ISNUMBER({theirs[0]})),IF(ISNUMBER({mine[0]}),{less},FALSE),TRUE)",
        BOOLEAN, value_of=holds)
    return holds
