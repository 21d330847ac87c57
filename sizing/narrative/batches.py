"""Another batch, in words: what the batches sizing found change, and where a device's options would cost less, or
would qualify at all, at a batch neither the scenario states nor sizing ranks (batch_search finds them)."""

from __future__ import annotations

from .. import alternatives
from ..batch_search import GAIN, TARGETS, Hint, ranked_batches, search
from ..evaluate import Results
from ..render.format import human
from ..results import Decision
from .common import shown_gap
from .margin import CLOSE_CALL
from .memo import option_words

__all__ = ["GAIN", "SHOWN", "batch_flip", "batch_hints", "batch_words"]

SHOWN = 3            # devices named at most


def batch_hints(r: Results, dec: Decision) -> list[Hint]:
    """The devices whose options would cost GAIN less at a batch nobody ranks, the largest savings first (at most
    SHOWN)."""
    return search(r, dec)[:SHOWN]


def found_of(r: Results, wid: str) -> list:
    """The batches sizing found for workload `wid` (automatic alternatives), in the order added."""
    return [w for w in alternatives.of(r.scenario.workloads, wid) if w.found]


def found_words(r: Results, wid: str, also: str = "") -> str:
    """'The scenario states batch 16; sizing also ranks each device at the batch that costs it least while leaving a
    tenth of each latency target to spare (found by sizing): batch 26 on the Instinct MI300X, batch 48 on the B200
    SXM 180GB.' '' where it found none."""
    found = found_of(r, wid)
    if not found:
        return ""
    stated = int(r.inputs[f"workload.{wid}.batch"].value.value)
    on = "; ".join(f"batch {w.get('batch')} on the {' and the '.join(short(r, d) for d in w.found)}" for w in found)
    return (f"The scenario states batch {stated}{also}; sizing also ranks a device at the batch that costs it least where "
            f"that saves 5 % or more and leaves a tenth of each latency target to spare (found by sizing): {on}.")


def short(r: Results, did: str) -> str:
    d = r.scenario.devices[did]
    return d.get("name") or did


def batch_words(r: Results, dec: Decision, hints: list[Hint] | None = None) -> str:
    """What the batches sizing found change ('The scenario states batch 16; sizing also ranks ...'), then each
    device that would cost less at a batch nobody ranks: 'At batch 30 the Instinct MI300X rented on demand as traffic
    needs would cost $3,721/month ($150/month less than its best at batch 26, $3,871/month, with little to spare:
    time between tokens 49.1 ms against the 50 ms target). ... To rank one, add it as an alternative of the
    workload: alternatives: {b30: {batch: 30}}.' '' when sizing found no batch and no other batch does better.
    `hints`: batch_hints' answer where the caller has it (one engine run)."""
    hints = batch_hints(r, dec) if hints is None else hints
    ranked = sorted(ranked_batches(r, dec.workload) - {int(w.get("batch")) for w in found_of(r, dec.workload)})
    also = f" (its alternatives rank batch {', '.join(map(str, ranked))})" if ranked else ""
    found = found_words(r, dec.workload, also)
    if not hints:
        return found
    parts = []
    for h in hints:
        cost = human(h.value, dec.unit)
        name = option_words(r, h.option) + (" held all month" if h.option.variant == "fleet" else "")
        tight = f", with little to spare: {h.tight}" if h.tight else ""
        if h.now is not None:
            parts.append(f"at batch {h.batch} the {name} would cost {cost} "
                         f"({shown_gap(h.now, h.value, dec.unit)} less than its best at batch "
                         f"{h.now_batch or h.stated}, {human(h.now, dec.unit)}{tight})")
        else:
            parts.append(f"at batch {h.batch} the {name} would meet every requirement, at {cost}{tight}")
    first = min(hints, key=lambda h: h.value)
    text = "; ".join(parts)
    best = dec.best
    verdict = "" if best is None or best.value is None else (
        f" None of these beats the recommendation ({human(best.value, dec.unit)})." if first.value >= best.value else
        f" At batch {first.batch} that beats the recommendation ({human(best.value, dec.unit)}) with less than a "
        f"tenth of a latency target to spare, so sizing does not rank it." if first.tight else
        f" At batch {first.batch} that beats the recommendation ({human(best.value, dec.unit)}): the workload states "
        f"no latency target, so sizing does not choose its batch (a larger batch gives each user slower answers); "
        f"rank it before deciding.")
    lead = found + " " if found else f"The workload runs at batch {first.stated}{also}. "
    return (f"{lead}{text[0].upper()}{text[1:]}.{verdict} To rank one, add it as an alternative of the workload: "
            f"alternatives: {{b{first.batch}: {{batch: {first.batch}}}}}.")


def batch_flip(r: Results, dec: Decision, hints: list[Hint] | None = None) -> str:
    """Page one's line on the batch: where the recommendation is a batch sizing found, which batch and what the
    stated one would cost ('Found by sizing: the scenario states batch 16, where Instinct MI300X on demand costs
    $4,562/month; at batch 26 it leaves a tenth of each latency target to spare.'); then where another batch would
    beat the recommendation: 'Instinct MI300X, on demand at batch 30: $3,721/month, $150/month less than this, with
    little to spare (time between tokens 49.1 ms against the 50 ms target): not ranked.' (without a latency target:
    '...; rank it before signing.'); where none does but one comes within the close-call factor of it: 'H100 SXM5
    80GB, on demand at batch 128: $3,653/month, 1.05x this: within the estimates' error, a close call at another
    batch.' '' otherwise."""
    best = dec.best
    found = batch_hints(r, dec) if hints is None else hints
    hints = [h for h in found if best is not None and best.value is not None and h.value < best.value]
    near = [h for h in found if best is not None and best.value and best.value <= h.value < best.value * (1 + CLOSE_CALL)]
    lead = chosen(r, dec)
    if not hints and near and not lead:     # the lead page one states shrinks at another batch (a reviewer found 1.05x)
        h = min(near, key=lambda h: h.value)
        name = option_words(r, h.option, short=True) + (", held all month" if h.option.variant == "fleet" else "")
        tight = f" ({h.tight}: little to spare)" if h.tight else ""
        return (f"{name} at batch {h.batch}: {human(h.value, dec.unit)}, {h.value / best.value:.2f}x this{tight}: "
                "within the estimates' error, a close call at another batch.")
    if not hints:
        return lead
    h = min(hints, key=lambda h: h.value)
    name = option_words(r, h.option, short=True) + (", held all month" if h.option.variant == "fleet" else "")
    gap = f"{human(h.value, dec.unit)}, {shown_gap(best.value, h.value, dec.unit)} less than this"
    line = (f"{name} at batch {h.batch}: {gap}, with little to spare ({h.tight}): not ranked." if h.tight else
            f"{name} at batch {h.batch}: {gap} (no latency target is stated, so sizing does not choose the batch); "
            "rank it before signing.")
    return f"{lead} {line}" if lead else line


def chosen(r: Results, dec: Decision) -> str:
    """Where the recommendation is a batch sizing found: 'Found by sizing: the scenario states batch 16, where the
    Instinct MI300X rented on demand costs $4,562/month; batch 25 costs $649/month less and leaves a tenth of each
    latency target to spare (time between tokens 44.6 ms against the 50 ms target; ...).'"""
    best = dec.best
    w = r.scenario.workloads.get(best.workload) if best is not None and best.workload else None
    if w is None or not w.found:
        return ""
    stated = int(r.inputs[f"workload.{w.alternative_of}.batch"].value.value)
    name = f"the {short(r, best.device)}" + {"busy_hours": " rented on demand", "fleet": " fleet"}.get(best.variant, "")
    before = next((o for o in dec.options if o.workload == w.alternative_of and o.device == best.device
                   and o.variant == best.variant), None)
    if before is not None and before.passes and before.value is not None:
        then = f"where {name} costs {human(before.value, dec.unit)}"
        gain = f"costs {shown_gap(before.value, best.value, dec.unit)} less and "
    else:
        then, gain = f"where {name} does not meet every requirement", "meets them and "
    return (f"Found by sizing: the scenario states batch {stated}, {then}; batch {w.get('batch')} {gain}leaves a "
            f"tenth of each latency target to spare ({margins(r, w.id, best.device)}).")


def margins(r: Results, wid: str, device: str) -> str:
    """Each stated latency target beside the figure it bounds: 'time between tokens 44.6 ms against the 50 ms
    target; time to first token 0.4 s against the 1 s target'."""
    p = r.pair(wid, device)
    out = []
    for quantities, target, words in TARGETS.get(p.kind if p else "", ()):
        v = next((x for q in quantities if isinstance(x := p.values.get(q), float)), None)
        t = r.inputs.get(f"workload.{wid}.{target}")
        if v is not None and t is not None:
            out.append(f"{words} {human(v, 's', 'ms')} against the {human(t.value.value, 's', 'ms')} target")
    return "; ".join(out)
