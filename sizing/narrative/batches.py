"""Another batch, in words: what the batches sizing found change, and where a device's options would cost less, or
would qualify at all, at a batch neither the scenario states nor sizing ranks (batch_search finds them)."""

from __future__ import annotations

from .. import alternatives
from ..batch_search import GAIN, Hint, allowance, device_speeds, latencies, ranked_batches, search
from ..evaluate import Results
from ..render.format import human, percent
from ..results import Decision
from .common import shown_gap
from .margin import CLOSE_CALL
from .memo import option_words, stated_batch, told_apart

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
    kind = next((p.kind for p in r.pairs if p.workload == wid), "")
    on = "; ".join(f"batch {w.get('batch')} on the {' and the '.join(slower(r, d, kind) for d in w.found)}"
                   for w in found)
    held = any({v for x, v in w.found_as if x == d} == {"fleet"} for w in found for d in w.found)
    floor = (", and where a fleet held all month costs least at another batch (saving 5 % on its fleet there, or "
             "costing no more than renting on demand), at that batch too") if held else ""
    return (f"The scenario states batch {stated}{also}; sizing also ranks a device at the batch that costs it least "
            f"where that saves 5 % or more and leaves a tenth of each latency target to spare, or meets each at the "
            f"median speed of the device's published runs where they ran slower (3 runs at least){floor} (found by "
            f"sizing): {on}.")


def slower(r: Results, did: str, kind: str) -> str:
    """A device's name, with the median speed its batch was found at where that set it: 'Instinct MI300X (each
    target met at 0.809x the predicted speed, the median of its 18 published runs)'."""
    a = allowance(r, did, kind)
    return short(r, did) + (f" (each target met at {a.median:.3f}x the predicted speed, the median of its {a.runs} "
                            "published runs)" if a.median is not None else "")


def short(r: Results, did: str) -> str:
    """A device's name; with its id where another compared device has the same name ('H100 SXM5 80GB (h100-pair)')."""
    return told_apart(r, did, lambda r, x: r.scenario.devices[x].get("name") or x, r.scenario.compare)


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
        name = hint_name(r, h.option) + (" held all month" if h.option.variant == "fleet" else "")
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
    held = r.scenario.workloads.get(first.option.workload or "")      # found on the devices that hold the model:
    count = held.values.get(f"devices.{first.option.device}") if held is not None and held.automatic else None
    devices = f", devices: {{{first.option.device}: {count.text}}}" if count is not None else ""    # they come too
    return (f"{lead}{text[0].upper()}{text[1:]}.{verdict} To rank one, add it as an alternative of the workload: "
            f"alternatives: {{b{first.batch}: {{batch: {first.batch}{devices}}}}}.")


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
    near = [h for h in found if best is not None and best.value
            and best.value <= h.value < best.value * (1 + CLOSE_CALL)]
    lead = chosen(r, dec)
    if lead:
        return lead                     # what another batch nobody ranks would do is said under the options table
    if not hints and near:     # the lead page one states shrinks at another batch (a reviewer found 1.05x)
        h = min(near, key=lambda h: h.value)
        name = hint_name(r, h.option, True) + (", held all month" if h.option.variant == "fleet" else "")
        tight = f" ({h.tight}: little to spare)" if h.tight else ""
        return (f"{name} at batch {h.batch}: {human(h.value, dec.unit)}, {h.value / best.value:.2f}x this{tight}: "
                "within the estimates' error, a close call at another batch.")
    if not hints:
        return lead
    h = min(hints, key=lambda h: h.value)
    name = hint_name(r, h.option, True) + (", held all month" if h.option.variant == "fleet" else "")
    gap = f"{human(h.value, dec.unit)}, {shown_gap(best.value, h.value, dec.unit)} less than this"
    return (f"{name} at batch {h.batch}: {gap}, with little to spare ({h.tight}): not ranked, too close to the "
            "target." if h.tight else
            f"{name} at batch {h.batch}: {gap} (no latency target is stated, so sizing does not choose the batch); "
            "rank it before signing.")


def chosen(r: Results, dec: Decision) -> str:
    """Where the recommendation is a batch sizing found: 'The scenario states batch 16 ($4,562/month on this device);
    batch 21 costs $429/month less: more requests per device, each answer 14 % slower (12.11 s instead of 10.65
    s). It meets each latency target even at 0.809x the predicted speed, the median of the device's 18 published
    runs (time between tokens 40.34 ms, 49.87 ms at that speed, against the 50 ms target).'"""
    best = dec.best
    w = r.scenario.workloads.get(best.workload) if best is not None and best.workload else None
    if w is None or not w.found:
        return ""
    stated = int(r.inputs[f"workload.{w.alternative_of}.batch"].value.value)
    before = next((o for o in dec.options if o.workload == w.alternative_of and o.device == best.device
                   and o.variant == best.variant), None)
    if before is not None and before.passes and before.value is not None:
        then = f"({human(before.value, dec.unit)} on this device)"
        gain = f"costs {shown_gap(before.value, best.value, dec.unit)} less"
    else:
        then, gain = "(where this device does not meet every requirement)", "meets them"
    p, base = r.pair(w.id, best.device), r.pair(w.alternative_of, best.device)
    slower = " slower"
    if p is not None and base is not None:
        a, b = p.values.get("request_latency", p.values.get("latency")), \
            base.values.get("request_latency", base.values.get("latency"))
        if isinstance(a, float) and isinstance(b, float) and a > b:     # the share, not 'a little' (a reviewer
            slower = f" {percent(a / b - 1, 2)} slower ({human(a, 's')} instead of {human(b, 's')})"   # read 43 %)
    return (f"The scenario states batch {stated} {then}; batch {w.get('batch')} {gain}, each answer"
            f"{slower}; {headroom(r, w.id, best.device, w.alternative_of)}.")


def headroom(r: Results, wid: str, device: str, stated: str = "") -> str:
    """How much slower than predicted a device may run before a batch misses its closest target, and how many of its
    published runs ran slower, beside the stated batch's (`stated`: its workload): 'time between tokens 40.34 ms
    against the 50 ms target: met down to 0.81x the predicted speed (9 of the device's 18 published runs ran slower;
    batch 16: down to 0.71x, 3 slower)'."""
    got = floor_of(r, wid, device)
    if got is None:
        return "it meets every latency target"
    floor, words = got
    runs = device_speeds(r, device, r.pair(wid, device).kind)
    slower = sum(x < floor for x in runs)
    seen = f"{slower} of the device's {len(runs)} published runs ran slower" if runs else \
        "the device has no published run"
    base = floor_of(r, stated, device) if stated else None
    if base is not None:
        seen += (f"; batch {r.inputs[f'workload.{stated}.batch'].value.text}: down to {base[0]:.2f}x" +
                 (f", {sum(x < base[0] for x in runs)} slower" if runs else ""))
    return f"{words}: met down to {floor:.2f}x the predicted speed ({seen})"


def floor_of(r: Results, wid: str, device: str) -> tuple[float, str] | None:
    """The speed, as a share of the predicted one, at which a pair meets its closest latency target exactly, and that
    target in words."""
    p = r.pair(wid, device)
    found = latencies(r, wid, p.values.get, p.kind) if p else []
    closest = max(found, key=lambda x: x.value / x.target, default=None)      # the first of equals, as TARGETS lists
    return (closest.value / closest.target, closest.said()) if closest else None


def hint_name(r: Results, o, short: bool = False) -> str:
    """An option at another batch, named without its stated batch ('L40S 48GB, on demand at batch 64')."""
    mark = stated_batch(r, o)
    name = option_words(r, o, short)
    return name.replace(mark, "", 1) if mark else name
