"""Another batch: where a device's options would cost less, or would qualify at all, at a batch other than the one the
scenario states. The decision stays at the stated batch (a batch is the scenario's to choose: it sets each user's
speed and the runtime's memory); these sentences say what another would change and how to rank it."""

from __future__ import annotations

from dataclasses import dataclass

from .. import alternatives
from ..evaluate import Results, decide_each_with
from ..render.format import human
from ..results import Decision, Option
from .common import shown_gap
from .margin import CLOSE_CALL
from .memo import option_words

# Batches tried: powers of two up to a runtime's usual ceiling.
CANDIDATES = tuple(2 ** k for k in range(11))
SERVED = ("generate", "forward")     # a served batch (a training batch is the optimiser's: another question)
GAIN = 0.05          # a saving under 5 % is within rounding of the prices: not worth a sentence
SHOWN = 3            # devices named at most


@dataclass(frozen=True)
class Hint:
    option: Option               # the option as ranked at the stated batch
    batch: int                   # the batch where it costs least (or first qualifies)
    value: float                 # its cost there
    stated: int                  # the scenario's batch
    now: float | None            # the device's best cost at the stated batch (None: none of its options qualifies)
    tight: str = ""              # a latency target it meets with little to spare, in words ('' when none)


def batch_hints(r: Results, dec: Decision) -> list[Hint]:
    """Per device, its best option at another batch when that costs GAIN less than its best at the stated batch,
    or qualifies where none of its options does; the largest savings first (qualifying ones after them). Money
    objectives of served work only; the decision's own workload (an alternative that sets its own batch is its own
    question)."""
    key = f"workload.{dec.workload}.batch"
    kind = next((p.kind for p in r.pairs if p.workload == dec.workload), None)
    if dec.maximise or "USD" not in dec.unit or key not in r.inputs or kind not in SERVED:
        return []
    stated = int(r.inputs[key].value.value)
    ranked = ranked_batches(r, dec.workload)
    best_batches = {int(b) for p in r.pairs if p.workload == dec.workload
                    and isinstance(b := p.values.get("best_batch"), float) and b >= 1}
    tried = sorted(b for b in {*CANDIDATES, *best_batches} if b != stated and b not in ranked)
    own = [o for o in dec.options if o.workload == dec.workload and o.variant in ("fleet", "busy_hours")]
    watched = tuple(f"{dec.workload}/{d}/{q}" for d in dict.fromkeys(o.device for o in own) for q, _, _ in TARGETS)
    runs = decide_each_with(r, [(key, float(b)) for b in tried], r.decisions.index(dec), watched)
    again = [d for d, _ in runs]
    hints = []
    for device in dict.fromkeys(o.device for o in own):
        mine = [o for o in own if o.device == device]
        now = min((o for o in mine if o.passes and o.value is not None), key=lambda o: o.value, default=None)
        best = None
        for b, d in zip(tried, again):
            for o in mine:
                x = next((y for y in d.options if y.id == o.id), None) if d is not None else None
                if x is not None and x.passes and x.value is not None and (best is None or x.value < best.value):
                    best = Hint(o, b, x.value, stated, now.value if now is not None else None,
                                tight_words(r, dec.workload, device, runs[tried.index(b)][1]))
        if best is not None and (best.now is None or best.value < best.now * (1 - GAIN)):
            hints.append(best)
    hints.sort(key=lambda h: (h.now is None, h.value - h.now if h.now is not None else h.value))
    return hints[:SHOWN]


# A latency quantity, the input of its target, and what the target is called.
TARGETS = (("token_interval", "targets.per_token_p95", "time between tokens"),
           ("ttft_p95", "targets.ttft_p95", "time to first token"))
TIGHT = 0.10         # a target met with less than a tenth of it to spare is named beside the batch


def tight_words(r: Results, wid: str, device: str, cells: dict) -> str:
    """The latency targets a batch meets with less than TIGHT to spare: 'time between tokens 49.1 ms against the 50
    ms target' (a procurement reviewer ranked the suggested batch and found it missed its target in two thirds of
    the simulated cases)."""
    out = []
    for qid, target, words in TARGETS:
        v, t = cells.get(f"{wid}/{device}/{qid}"), r.inputs.get(f"workload.{wid}.{target}")
        if isinstance(v, float) and t is not None and t.value.value > 0 and 0 <= 1 - v / t.value.value < TIGHT:
            out.append(f"{words} {human(v, 's', 'ms')} against the {human(t.value.value, 's', 'ms')} target")
    return " and ".join(out)


def ranked_batches(r: Results, wid: str) -> set[int]:
    """The batches the workload's alternatives already rank (those that change its batch and nothing else)."""
    out = set()
    for w in alternatives.of(r.scenario.workloads, wid):
        given = {k: v for k, v in alternatives.given_by(r.scenario.workloads, w).items() if k != "title"}
        if set(given) == {"batch"}:
            out.add(int(float(given["batch"].value)))
    return out


def batch_words(r: Results, dec: Decision, hints: list[Hint] | None = None) -> str:
    """'The workload runs at batch 16. At batch 32 the Instinct MI300X rented on demand as traffic needs would cost
    $3,905/month ($657/month less than its best at batch 16); at batch 8 the Gaudi 3 would meet every requirement,
    at $9,345/month. To rank one, add it as an alternative of the workload: alternatives: {b32: {batch: 32}}.'
    '' when no other batch does better. `hints`: batch_hints' answer where the caller has it (one engine run)."""
    hints = batch_hints(r, dec) if hints is None else hints
    if not hints:
        return ""
    parts = []
    for h in hints:
        cost = human(h.value, dec.unit)
        name = option_words(r, h.option) + (" held all month" if h.option.variant == "fleet" else "")
        tight = f", with little to spare: {h.tight}" if h.tight else ""
        if h.now is not None:
            parts.append(f"at batch {h.batch} the {name} would cost {cost} "
                         f"({shown_gap(h.now, h.value, dec.unit)} less than its best at batch {h.stated}, "
                         f"{human(h.now, dec.unit)}{tight})")
        else:
            parts.append(f"at batch {h.batch} the {name} would meet every requirement, at {cost}{tight}")
    first = min(hints, key=lambda h: h.value)
    text = "; ".join(parts)
    best = dec.best
    verdict = "" if best is None or best.value is None else (
        f" At batch {first.batch} that beats the recommendation ({human(best.value, dec.unit)}): rank it before "
        "deciding." if first.value < best.value else
        f" None of these beats the recommendation ({human(best.value, dec.unit)}).")
    ranked = sorted(ranked_batches(r, dec.workload))
    also = f" (its alternatives rank batch {', '.join(map(str, ranked))})" if ranked else ""
    return (f"The workload runs at batch {first.stated}{also}. {text[0].upper()}{text[1:]}.{verdict} To rank "
            f"one, add it as an alternative of the workload: alternatives: {{b{first.batch}: {{batch: "
            f"{first.batch}}}}}.")


def batch_flip(r: Results, dec: Decision, hints: list[Hint] | None = None) -> str:
    """Page one's line where another batch would beat the recommendation: 'Instinct MI300X, on demand at batch 30:
    $3,721/month, $841/month less than this; rank it before signing.'; where none does but one comes within the
    close-call factor of it: 'H100 SXM5 80GB, on demand at batch 128: $3,653/month, 1.05x this: within the
    estimates' error, a close call at another batch.' '' otherwise."""
    best = dec.best
    found = batch_hints(r, dec) if hints is None else hints
    hints = [h for h in found if best is not None and best.value is not None and h.value < best.value]
    near = [h for h in found if best is not None and best.value and best.value <= h.value < best.value * (1 + CLOSE_CALL)]
    if not hints and near:              # the lead page one states shrinks at another batch (a reviewer found 1.05x)
        h = min(near, key=lambda h: h.value)
        name = option_words(r, h.option, short=True) + (", held all month" if h.option.variant == "fleet" else "")
        tight = f" ({h.tight}: little to spare)" if h.tight else ""
        return (f"{name} at batch {h.batch}: {human(h.value, dec.unit)}, {h.value / best.value:.2f}x this{tight}: "
                "within the estimates' error, a close call at another batch.")
    if not hints:
        return ""
    h = min(hints, key=lambda h: h.value)
    name = option_words(r, h.option, short=True) + (", held all month" if h.option.variant == "fleet" else "")
    tight = f" ({h.tight}: little to spare)" if h.tight else ""
    return (f"{name} at batch {h.batch}: {human(h.value, dec.unit)}, {shown_gap(best.value, h.value, dec.unit)} "
            f"less than this{tight}; rank it before signing.")
