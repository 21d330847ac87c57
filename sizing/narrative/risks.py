"""An option's risk notes, from data: how its price is sourced and how old it is, the device's figures marked
unverified that its result depends on, how the device's published runs compare with the prediction, service
caveats."""

from __future__ import annotations

import re
import statistics
from datetime import date

import numpy as np

from ..binding import basis_unwritten
from ..decide import pair_of
from ..evaluate import Results, decide_each
from ..language.hardware import DEVICE_FIELDS
from ..render.format import number, percent
from ..results import Decision, Option
from .margin import own_runs
from .memo import count, horizon_months, input_what
from .money import committed, money_text
from .training import filled

DATE = re.compile(r"\b(20\d\d)(?:-(\d\d))?(?:-(\d\d))?\b")


def source_age(source: str, today: date) -> str:
    """'of 2025-01, 23 months old' from the newest date a source names; '' when it names none."""
    found = [(int(y), int(m or 1)) for y, m, _ in DATE.findall(source)]
    if not found:
        return ""
    y, m = max(found)
    months = (today.year - y) * 12 + today.month - m
    text = f"{y}-{m:02d}" if re.search(rf"{y}-{m:02d}", source) else str(y)
    return f"of {text}, {months} months old" if months > 0 else f"of {text}"


def risks(r: Results, dec: Decision, o: Option, today: date, detail: bool = True) -> list[str]:
    """Short risk notes for an option, from data: how its price is sourced and how old it is, catalog figures
    marked unverified or illustrative, how the device's published runs compare with the prediction, service
    caveats. With `detail` (page 1's one option) the unverified figures are named and the runs' direction said;
    without (a row of the options table, where a device recurs), counted and ranged only."""
    if o.variant == "api":
        return ["provider's price and service level not sourced; capacity not modelled"]
    out = []
    p = pair_of(r, dec, o)
    own = o.variant == "fleet" and p is not None and p.values.get("cost_basis") == "own"
    key = f"device.{o.device}.{'costs.purchase' if own else 'price'}"
    if (i := r.inputs.get(key)) is not None:
        what = "purchase price" if own else "price"
        source = i.value.source or ""
        if not source.startswith("catalog "):
            d = r.scenario.devices[o.device]
            given = d.get(f"field_sources.{'costs.purchase' if own else 'price'}")
            age = source_age(str(given), today) if given else ""
            guessed = given and "assum" in str(given).lower()
            state = "assumed" if guessed else "undated" if given else "not sourced"
            out.append(f"{what} {age}" if age else f"{what} {state}")
        else:
            age = source_age(source, today)
            out.append(f"catalog {what} {age}" if age else f"catalog {what}")
    d = r.scenario.devices.get(o.device)
    if d is not None:
        if d.get("illustrative"):
            out.append("illustrative device")
        unverified = unverified_notes(r, dec, o)
        if unverified:
            named = f" ({'; '.join(in_words(r, o.device, n, whole=detail) for n in unverified)})"
            bears = "bears" if len(unverified) == 1 else "bear"     # a note may cover two figures (FP8, BF16 peaks)
            out.append(f"{count(len(unverified), 'unverified source note')} {bears} on it{named}")
        runs = own_runs(r, dec, o)
        if runs:
            out.append(run_words(runs, detail))
        elif not d.get("illustrative"):
            out.append(f"no published run: speed estimated from other {FAMILY.get(d.get('kind'), 'devices')}' "
                       "runs")
    if p is not None and p.kind == "train" and (full := filled(p.values)) is not None and full >= TIGHT:
        out.append(f"fills {full * 100:.0f} % of its usable memory (an eager training stack keeps up to a quarter "
                   "more activations than counted: see the method)")
    if own and p.kind == "train" and (bought := write_off_words(r, o, p.values, detail)):
        out.append(bought)
    elif p is not None and p.kind == "train" and o.variant == "fleet" and committed(r, p):
        out.append("committed rate: only the run's hours are counted" +
                   (", not the rest of the commitment's term: other work must use it, or it is paid for idle"
                    if detail else ""))
    if p is not None and p.kind == "train" and o.variant == "fleet" and (instead := bought_instead(r, o, p.values,
                                                                                                   detail)):
        out.append(instead)
    if detail and p is not None and p.kind == "train":
        out.append("data loading, checkpoints, failures and restarts are not counted: book time and money beyond "
                   "the run's")
    if own and f"device.{o.device}.costs.electricity" not in r.inputs:
        out.append("no running cost given")
    elif own and f"device.{o.device}.costs.hosting" not in r.inputs:
        out.append("no hosting cost given (rack space, staff: counted as 0)")
    if p is not None and p.kind in ("generate", "forward") and o.passes and (close := knife_edge(r, p)):
        out.append(f"meets its target{'s' if ' and ' in close else ''} with under 5 % to spare: {close}")
    if p is not None and p.kind == "train" and o.passes and (close := deadline_edge(r, p)):
        out.append(close)
    if detail and p is not None and p.kind == "train" and len(methods(r, dec)) > 1:
        out.append(f"{' and '.join(METHOD_WORDS.get(m, m) for m in sorted(methods(r, dec)))} ranked on cost "
                   "alone: the quality of the model each trains is not compared")
    if o.variant == "busy_hours":
        out.append("on-demand capacity assumed")
    w = r.scenario.workloads.get(o.workload or "")
    if w is not None and w.found and p is not None:
        out.append(closer(r, dec, o, w.alternative_of, short=not detail))
    if detail and p is not None and p.kind in ("generate", "forward"):
        out += unstated(r, w.alternative_of if w is not None and w.found else p.workload)
    return out


EDGE = 0.05             # a latency target met with less than this share of it to spare is a risk of its own


def knife_edge(r: Results, p) -> str:
    """The latency targets a served option meets with under EDGE to spare, in words: 'request latency 98.76 ms
    against the 100 ms target' (a new user's recommendation 'met' 100 ms at 98.76 ms without a word)."""
    from ..batch_search import close_words
    return close_words(r, p.workload, p.values.get, EDGE, p.kind)


def deadline_edge(r: Results, p) -> str:
    """A training run that meets its deadline with under EDGE of it to spare: 'finishes with under 5 % of its deadline
    to spare: 29.93 of 30 days' (a procurement reviewer found an H100 option's 0.23 % nowhere among its risks)."""
    spare, took, limit = p.values.get("deadline_spare"), p.values.get("duration"), \
        r.inputs.get(f"workload.{p.workload}.deadline")
    if not isinstance(spare, float) or not 0 <= spare < EDGE or not isinstance(took, float) or limit is None:
        return ""
    return (f"finishes with under {percent(EDGE)} of its deadline to spare: {number(took / 86400, 4)} of "
            f"{number(limit.value.value / 86400, 4)} days")


METHOD_WORDS = {"full": "full fine-tuning", "lora": "LoRA adapters"}      # as a reader names them, not the key


def methods(r: Results, dec: Decision) -> set[str]:
    """The training methods a decision's options use ('full', 'lora'): ranked against each other on cost alone."""
    return {str(w.get("method")) for o in dec.options if (w := r.scenario.workloads.get(o.workload or dec.workload))
            is not None and w.get("kind") == "train" and w.has("method")}


def write_off_words(r: Results, o: Option, v: dict, detail: bool) -> str:
    """A bought training run's cost is its hours' share of the devices' write-off: 'its cost is 4.08 % of their
    36-month write-off: other work must use them for the rest, or this run costs the $740,000 paid up front' (a
    finance reviewer and a new user read 'Buy 37 × Instinct MI300X, cost of the run $42,949' beside $740,000 of
    capital that appeared nowhere)."""
    share, capex = v.get("write_off_share"), v.get("capex")
    if not isinstance(share, float) or not isinstance(capex, float):
        return ""
    months = horizon_months(r, o)
    out = f"bought: its cost is {percent(share, 3)} of their {number(months, 3)}-month write-off"
    return out + (f": other work must use them for the rest, or this run costs the {money_text(capex)} paid up front"
                  if detail else "")


def bought_instead(r: Results, o: Option, v: dict, detail: bool) -> str:
    """A training run rented on a device that has a purchase price too, its basis left to sizing: what buying would
    cost, and on what condition its share of the write-off is the run's cost: 'rented, not bought: buying its 32
    devices costs $640,000 up front; the run's share of their 36-month write-off with their running costs, $22,318,
    is its cost only where
    other work uses them for the rest (then state costs.basis: own)' (readers of three reviews read a one-off run
    ranked at that share as flattering; it is ranked rented)."""
    purchase, d = r.inputs.get(f"device.{o.device}.costs.purchase"), r.scenario.devices.get(o.device)
    n, rate, took = v.get("devices"), v.get("own_rate"), v.get("duration")
    if purchase is None or d is None or not basis_unwritten(d) or \
            v.get("cost_basis") == "own" or not all(isinstance(x, float) for x in (n, rate, took)):
        return ""
    out = f"rented, not bought: buying its {count(n, 'device')} costs {money_text(n * purchase.value.value)} up front"
    if not detail:
        return out
    even = v.get("breakeven_utilisation")          # a run every week is busy 42 % of the time (a new user's case)
    busy = f"; buying costs less than renting only where they are busy more than {percent(even, 3)} of those months" \
        if isinstance(even, float) and 0 < even < 1 else ""
    return (f"{out}; the run's share of their {number(horizon_months(r, o), 3)}-month write-off with their running "
            f"costs, {money_text(n * rate * took)}, is its cost only where other work uses them for the rest (then "
            f"state costs.basis: own){busy}")


DOES = {"fits": "fits in memory", "meets_targets": "meets the latency targets"}     # a requirement, met


def closer(r: Results, dec: Decision, o: Option, stated: str, short: bool = False) -> str:
    """A batch sizing found runs closer to the latency targets than the stated one: 'batch 21 leaves less room under
    its latency targets than the stated 16 (time between tokens 40.34 ms against 35.48 ms, the target 50 ms); it misses a latency target in 11 % of the simulated cases, the stated batch in < 1 %'. `short`, for the
    options table: 'misses a latency target in 33 % of the simulated cases (batch 16: < 1 %)' (a finance reviewer
    found the H100's batch 39 meeting them in 67 % of the draws on the workbook, 'closer to its latency targets' in
    the PDF)."""
    from ..batch_search import latencies
    from ..render.format import human
    from .confidence import share                    # as How sure writes a share ('< 1 %')
    p, base = r.pair(o.workload, o.device), r.pair(stated, o.device)
    batch, was = r.inputs[f"workload.{o.workload}.batch"].value.text, r.inputs[f"workload.{stated}.batch"].value.text
    figures = [f"{x.words} {human(x.value, 's', 'ms')} against {human(u, 's', 'ms')}, the target "
               f"{human(x.target, 's', 'ms')}" for x in latencies(r, stated, p.values.get, p.kind)
               if base and isinstance(u := base.values.get(x.qid), float)][:1]   # the target it runs closest to
    own = next((x for x in dec.options if x.workload == stated and x.device == o.device and x.variant == o.variant),
               None)
    if own is not None and not own.passes:       # what the stated batch fails (a new user read 'meets the latency
        does = " and ".join(dict.fromkeys(DOES.get(f.quantity, "meets its requirements") for f in own.failures))
        return f"{does}; batch {was} does not" if short else \
            f"batch {batch} {does}, which the stated {was} does not on this device"     # targets' of one not fitting)
    out = f"batch {batch} leaves less room under its latency targets than the stated {was}"   # not "closer"
    spread = r.simulation.decision(dec.id) if r.simulation is not None else None
    mine = spread.option(o.id) if spread is not None else None
    theirs = spread.option(own.id) if spread is not None and own is not None else None
    if mine is not None and theirs is not None:
        missed, before = share(1 - mine.meets_probability), share(1 - theirs.meets_probability)
        if short:                                    # a narrow column: '33 %' kept on one line
            return f"misses a latency target in {missed} of the simulated cases (batch {was}: {before})".replace(
                " %", "\u00a0%")
        return f"{out}: it misses a latency target in {missed} of the simulated cases, batch {was} in {before}"
    if short:
        return f"less room under its latency targets than batch {was}"
    return out + (f" ({figures[0]})" if figures else "")



# Served work's fields whose defaults shape the fleet, and what page one says when the scenario leaves them out.
UNSTATED = (("traffic.utilisation", "traffic.average", "average traffic not given (taken as the peak)"),
            ("batch", "", "batch not given (1: each request processed alone)"),
            ("traffic.redundancy", "", "no spare replica given"),
            ("traffic.max_utilisation", "", "no headroom at the peak given (planned to run at 100 %)"))


def unstated(r: Results, wid: str) -> list[str]:
    """The fleet-shaping fields of a served workload left at their defaults (a new user's first run served at batch
    1 and at an average equal to the peak, said only in the inputs table)."""
    out = []
    peak = f"workload.{wid}.traffic.peak" in r.inputs          # without one, the traffic fields size nothing
    for path, instead, words in UNSTATED:
        if path.startswith("traffic.") and not peak:
            continue
        i = r.inputs.get(f"workload.{wid}.{path}")
        if i is not None and str(i.value.source).startswith("default") and f"workload.{wid}.{instead}" not in r.inputs:
            out.append(words)
    return out


def run_words(runs: list[float], detail: bool = True) -> str:
    """'17 published runs of this device ran at 0.43-1.66x the predicted speed (median 0.93x; below 1: slower,
    so more devices needed)'; a single run is called what it is, little evidence. Without `detail`: '17 published
    runs at 0.43-1.66x the predicted speed (median 0.93x)'."""
    slower = "below 1: slower, so more devices needed"
    if len(runs) == 1:
        return (f"only 1 published run of this device, at {runs[0]:.2f}x the predicted speed ({slower})" if detail
                else f"only 1 published run, at {runs[0]:.2f}x the predicted speed")
    middle = f"median {statistics.median(runs):.2f}x" if len(runs) > 2 else ""
    if not detail:
        return (f"{len(runs)} published runs at {min(runs):.2f}-{max(runs):.2f}x the predicted speed"
                + (f" ({middle})" if middle else ""))
    return (f"{len(runs)} published runs of this device ran at {min(runs):.2f}-{max(runs):.2f}x the predicted speed "
            f"({middle + '; ' if middle else ''}{slower})")


def scoped_paths(text: str) -> tuple[str, ...]:
    """The device fields an unverified note is about, from its head ('compute.int8: INT8 dense from computed
    tables', 'power, host link: ...' reads as power alone: a head that is not field paths scopes nothing); () for a
    note about the device as a whole."""
    head, sep, _ = text.partition(": ")
    if not sep:
        return ()
    paths = tuple(x.strip() for x in head.split(","))
    return paths if all(known_path(x) for x in paths) else ()


def known_path(path: str) -> bool:
    """A device field (or a block of them: `compute`, `interconnect`) in the scenario language."""
    top, _, rest = path.partition(".")
    field = next((f for f in DEVICE_FIELDS if f.name == top), None)
    if field is None:
        return False
    return not rest or top == "compute" or any(getattr(x, "name", None) == rest
                                                for x in getattr(field.type, "fields", ()))


RELATIVE = 1e-9            # a change of the option's figure beyond rounding
MOVES = (0.75, 1.25)       # an unverified figure a quarter lower or higher


def unverified_notes(r: Results, dec: Decision, o: Option) -> list[str]:
    """The device's unverified notes that bear on the option: every note about the device as a whole, and each
    note about fields the option's figure or its requirements move with (each field's input moved by a quarter
    down and up, one at a time, and the decision re-run: an INT8 rate does not bear on a BF16 workload, nor a
    power draw on a rented fleet, nor an interconnect on one device)."""
    d = r.scenario.devices.get(o.device)
    if d is None:
        return []
    notes = [str(v.value) for k, v in d.values.items() if k.startswith("unverified[")]
    said = {path for n in notes for path in scoped_paths(n)}           # a field the list names is not named twice
    notes += [f"{field}: {first_clause(str(v.value).removeprefix(UNVERIFIED))}" for k, v in d.values.items()
              if k.startswith(SOURCES) and str(v.value).startswith(UNVERIFIED)
              and (field := k.removeprefix(SOURCES)) not in said]
    scoped = {n: scoped_paths(n) for n in notes}
    keys = sorted({k for paths in scoped.values() for path in paths for k in inputs_under(r, o.device, path)})
    moving = bearing(r, dec, o, keys) if keys else set()
    return [n for n in notes if not scoped[n]
            or any(k in moving for path in scoped[n] for k in inputs_under(r, o.device, path))]


TIGHT = 0.80             # a training run filling this share of its usable memory may not fit on an eager stack


FAMILY = {"gpu": "GPUs", "tpu": "TPUs", "cpu": "CPUs", "accelerator": "accelerators", "npu": "NPUs"}
SOURCES, UNVERIFIED = "field_sources.", "unverified: "      # a field's source marked unverified is a note too


def in_words(r: Results, did: str, note: str, whole: bool = True) -> str:
    """An unverified note with the fields it is about in words where they are inputs ('its scale-up fabric latency
    per collective step: ...' for 'interconnect.latency: ...'); not `whole`, the fields alone (the options table:
    a reviewer could not tell which figure bore on an option)."""
    paths = scoped_paths(note)
    keys = [f"device.{did}.{p}" for p in paths]
    if not whole and paths and not all(k in r.inputs for k in keys):     # a block: the inputs under it it reads
        paths = [k.removeprefix(f"device.{did}.") for p in paths for k in inputs_under(r, did, p)]
        keys = [f"device.{did}.{p}" for p in paths]
    if not paths or not all(k in r.inputs for k in keys):
        return note if whole else first_clause(note)
    words = [input_what(r, k) for k in keys]
    words = [f"{p.split('.')[1].upper()} {w}" if p.startswith("compute.") and p.count(".") == 1 else w
             for p, w in zip(paths, words)]                  # 'INT8 peak compute rate'
    return f"its {', '.join(words)}" + (f": {note.partition(': ')[2]}" if whole else "")


def first_clause(text: str) -> str:
    """A source's words up to its first aside ('the NVLink per-step figure applied (no RCCL ...' -> 'the NVLink
    per-step figure applied')."""
    return re.split(r" \(|; |\. ", text, maxsplit=1)[0].rstrip(".")


def inputs_under(r: Results, device: str, path: str) -> list[str]:
    """The numeric input cells of a device field or block."""
    prefix = f"device.{device}.{path}"
    return [k for k, i in r.inputs.items() if (k == prefix or k.startswith(prefix + "."))
            and isinstance(i.value.value, (int, float)) and not isinstance(i.value.value, bool)
            and np.isfinite(i.value.value)]


def bearing(r: Results, dec: Decision, o: Option, keys: list[str]) -> set[str]:
    """Of `keys`, the inputs whose move by a quarter, down or up, changes the option's figure or whether it
    qualifies."""
    which = r.decisions.index(dec)
    changes = [(k, r.inputs[k].value.value * f) for k in keys for f in MOVES]
    moved = decide_each(r, changes, which)
    out = set()
    for (k, _), again in zip(changes, moved):
        other = next((x for x in again.options if x.id == o.id), None) if again is not None else None
        if other is None or other.passes != o.passes or changed(other.value, o.value):
            out.add(k)
    return out


def changed(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return abs(a - b) > RELATIVE * max(abs(a), abs(b), 1e-300)
