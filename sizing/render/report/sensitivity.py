"""Sensitivity: the recommendation with each assumption moved by a quarter, one at a time."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ... import alternatives
from ... import formulas as F
from ...decide import pair_of
from ...evaluate import Results, decide_each_with
from ...narrative import objective_words, option_tag, pairs_of, used_keys
from ...narrative.memo import apart_from, changes as in_words, input_words, moved_words, option_words
from .. import charts
from ..format import human, separated
from .context import Chart, Sensitivity, Table


SENSITIVITY = (0.75, 1.25)         # each assumption moved -25 % and +25 %
TORNADO_ROWS = 12
FLIPS_SHOWN = 6                    # changes that alter the recommendation, listed on the first page


def assumptions(r: Results, wid: str) -> list[str]:
    """Input keys read by the decision workload that are numeric assumptions."""
    used = used_keys(pairs_of(r, wid))
    return [k for k, i in r.inputs.items() if k in used and F.INPUTS[i.role].assumption
            and isinstance(i.value.value, (int, float)) and not isinstance(i.value.value, bool)]


def nudged(r: Results, key: str, factor: float) -> float | None:
    """The input moved by the factor (fractions capped at 100 %, counts kept whole); None when that changes nothing."""
    i = r.inputs[key]
    v = i.value.value * factor
    if F.INPUTS[i.role].fraction:
        v = min(v, 1.0)
    if isinstance(i.value.value, int):          # a batch of 7.5 sequences is not an assumption anyone makes
        v = float(max(1, round(v)))
    return None if v == i.value.value else v


@dataclass(frozen=True)
class Outcome:
    """The engine's decision with one assumption moved: the option recommended and its objective value."""

    moved: bool
    device: str | None
    value: float | None
    to: float | None = None          # the input's moved value
    words: str | None = None         # the option recommended, as a sentence names it
    devices: float | None = None     # a training run's devices there (a deadline's count moves with the inputs)
    tie: bool = False                # another option on the same devices, paid alike, at the same headline
    name: str | None = None          # the option recommended as the options table names it (not its label)

    def named(self) -> str:
        return self.name or self.device or "none qualifies"


def sensitivity(r: Results, which: int) -> Sensitivity | None:
    """How a decision's recommendation and headline figure move when each assumption moves by a quarter."""
    dec = r.decisions[which]
    if not dec.recommendation:
        return None
    wid, best = dec.workload, dec.best.label
    d = F.definition(dec.best.quantity)
    base = dec.best.value
    fmt = lambda v: human(v, d.unit, d.display) if v is not None else "n/a"   # noqa: E731
    keys = assumptions(r, wid)
    changes = [(k, v) for k in keys for f in SENSITIVITY if (v := nudged(r, k, f)) is not None]
    counts = device_keys(r, dec)
    now = pair_of(r, dec, dec.best).values.get("devices") if counts else None
    decisions = iter(decide_each_with(r, changes, which, tuple(counts.values())))
    moves = []
    for key in keys:
        out = []
        for f in SENSITIVITY:
            if nudged(r, key, f) is None:
                out.append(Outcome(False, best, base))
                continue
            alt, cells = next(decisions)
            chosen = alt.best if alt else None
            n = cells.get(counts.get(chosen.id)) if chosen else None
            named = option_words(r, chosen, short=True) if chosen else None     # as it is there: a reviewer read
            if chosen is not None and same_run(chosen, dec.best):               # '(32 devices, whole servers)' on 38
                chosen = replace(dec.best, value=chosen.value)    # on whole servers or not: the same hardware
            moved = isinstance(n, float) and (n != now or chosen.label != best)    # the count only where it moves
            tie = chosen is not None and chosen.label != best and chosen.device == dec.best.device and \
                chosen.variant == dec.best.variant and fmt(chosen.value) == fmt(base) and not moved
            out.append(Outcome(True, chosen.label if chosen else None, chosen.value if chosen else None,
                               nudged(r, key, f), apart_from(r, chosen, dec.best) if chosen else none_words(r, dec, alt),
                               n if moved else None, tie, named))
        moves.append((key, out))
    changed = lambda o: o.moved and (o.device != best or fmt(o.value) != fmt(base))   # noqa: E731
    shown = [m for m in moves if any(changed(o) for o in m[1])]
    shown.sort(key=lambda m: (-sum(o.device != best for o in m[1]), -swing(base, m[1]), m[0]))
    flips = tuple(in_words(r, [(key, o.to, o.words) for key, out in shown for o in out
                              if o.moved and o.device != best and not o.tie]))
    flips += tuple(ties_words(r, [(key, o) for key, out in shown for o in out if o.tie]))
    intro = (f"Each assumption below was moved down and up by 25 % (fractions capped at 100 %), one at a time, and "
             f"the engine re-run. Headline: {objective_words(dec)} of the recommended option, now {fmt(base)} on "
             f"{option_words(r, dec.best)}. {len(moves) - len(shown)} other assumptions move neither the recommendation nor the "
             f"headline.")
    widest = sorted(shown, key=lambda m: (-swing(base, m[1]), m[0]))[:TORNADO_ROWS]     # a tornado: widest first
    swings = [charts.Swing(input_label(r, key), *(o.value if o.moved else None for o in out),
                           *(f"→ {o.named()}" if o.moved and o.device != best else "" for o in out))
              for key, out in widest]
    chart = None
    if swings:
        some = f"the {len(widest)} of the table's {len(shown)} assumptions that move it most, " \
            if len(widest) < len(shown) else ""
        noted = any(s.low_note or s.high_note for s in swings)     # a caption spoke of notes none had drawn
        chart = Chart(f"Tornado: the headline figure with each assumption ({some}widest first) at −25 % (blue) and "
                      "+25 % (orange)" + ("; a red note names the option recommended instead." if noted else "."),
                      charts.tornado(f"Sensitivity of the {objective_words(dec)}", base, swings, d.unit,
                                     "assumption −25 %", "assumption +25 %"))
    rows = tuple((input_label(r, key), separated(r.inputs[key].value.text),
                  *(x for o in out for x in ((o.named(), fmt(o.value) + on_devices(o, table=True)) if o.moved
                                             else ("(already 100 %)", ""))))
                 for key, out in shown)
    head = ("Assumption", "As given", "−25 %: recommended", "headline", "+25 %: recommended", "headline")
    more = f"and {len(flips) - FLIPS_SHOWN} more in the sensitivity section" if len(flips) > FLIPS_SHOWN else ""
    return Sensitivity(intro, flips[:FLIPS_SHOWN], more, chart, Table(head, rows, ("l", "r", "l", "r", "l", "r")),
                       held_range(r, dec, moves, fmt))


FAILS = {"budget": "go over the budget", "latency target": "miss a target", "does not fit": "not fit in memory",
         "deadline": "miss the deadline", "deployment": "not be available where it must run",
         "no rate at this precision": "have no rate at this precision"}


def same_run(a, b) -> bool:
    """Whether two options are one training run on one device, on the devices its deadline needs and on every device
    of its whole servers: a move that trades one for the other changes no choice of hardware (the automatic
    alternative keeps the count it was built at, so a slower device 'flipped' to the run as written)."""
    ids = [o.workload or "" for o in (a, b)]
    return a.device == b.device and a.variant == b.variant and ids[0] != ids[1] and \
        len({alternatives.written_run(x) for x in ids}) == 1


def none_words(r: Results, dec, alt) -> str | None:
    """Where no option would qualify, why, for the option recommended now: 'no option qualifies (H100 SXM5 80GB
    would go over the budget)' (a reviewer read 'no option qualifies' and could not tell why). None where it says
    nothing more."""
    x = next((o for o in alt.options if o.id == dec.best.id), None) if alt is not None else None
    if x is None or not x.failures:
        return None
    tag = option_tag(r, alt, x)
    return f"no option qualifies ({option_words(r, x)} would {FAILS[tag]})" if tag in FAILS else None


def ties_words(r: Results, ties: list[tuple[str, Outcome]]) -> list[str]:
    """The moves that only swap the recommendation for an option that costs the same on the same devices, paid
    alike, as one clause (a new user read six such swaps as six ways the decision could change): 'the memory
    bandwidth efficiency 25 % higher and 5 more: only Instinct MI300X (batch 32), at the same cost on the same
    devices, paid the same way: the same purchase'. [] when none."""
    if not ties:
        return []
    first = moved_words(r, ties[0][0], ties[0][1].to)
    more = f" and {len(ties) - 1} more" if len(ties) > 1 else ""
    names = " or ".join(dict.fromkeys(o.words for _, o in ties if o.words))
    return [f"{first}{more}: only {names} instead, at the same cost on the same devices, paid the same way: the "
            "same purchase"]


def device_keys(r: Results, dec) -> dict[str, str]:
    """Option id -> the key of its training run's device count (training decisions only)."""
    out = {}
    for o in dec.options:
        p = pair_of(r, dec, o)
        if p is not None and p.kind == "train":
            out.update({o.id: x.key for x in p.present() if x.d.id == "devices"})
    return out


def on_devices(o: Outcome, table: bool = False) -> str:
    """', on 40 devices' (in a table ' (40 devices)') where the outcome is a training run's and its count moved
    with the input (a signer ordering devices asked how many each case takes)."""
    if o.devices is None:
        return ""
    n = f"{o.devices:,.0f} device{'' if o.devices == 1 else 's'}"
    return f" ({n})" if table else f", on {n}"


def held_range(r: Results, dec, moves: list[tuple[str, list[Outcome]]], fmt) -> str:
    """Where the recommendation holds, how far its headline moves: 'Where it holds, its monthly cost runs from
    $9,981/month (the H100 SXM5 80GB purchase price 25 % lower) to $12,757/month (the peak traffic 25 % higher).'"""
    best = dec.best.label
    held = [(o.value, key, o.to, on_devices(o)) for key, out in moves for o in out
            if o.moved and o.device == best and isinstance(o.value, float)]
    if not held:
        return ""
    low, high = min(held), max(held)
    if fmt(low[0]) == fmt(high[0]):
        return ""
    always = all(o.device == best for _, out in moves for o in out if o.moved)
    base = fmt(dec.best.value) if isinstance(dec.best.value, float) else None

    def end(x: tuple, side: str) -> str:
        """Where no move that keeps it goes further than its figure as stated, that figure, said so (a signer read
        '$2,703/month (with the peak traffic 25 % lower)' of the figure as stated)."""
        if fmt(x[0]) == base:
            return f"{fmt(x[0])}, its figure as stated (no move that keeps it goes {side})"
        return f"{fmt(x[0])} (with {moved_words(r, x[1], x[2])}{x[3]})"
    return (f"{'Across these moves' if always else 'Where it holds'}, its {objective_words(dec)} runs from "
            f"{end(low, 'lower')} to {end(high, 'higher')}.")


def swing(base: float, outcome: list[Outcome]) -> float:
    return max((abs(o.value - base) for o in outcome if isinstance(o.value, float)), default=0.0)


def input_label(r: Results, key: str) -> str:
    """An assumption as a table row or chart label names it: 'Instinct MI300X hourly rental price'."""
    words = input_words(r, key).removeprefix("the ")
    return words[:1].upper() + words[1:]
