"""Another batch, searched: per device, the batch that serves a decision's workload for the least money. Where the
workload states a latency target, each device's cheapest batch that leaves a tenth of every target to spare, or
meets it at the device's median published speed where that is slower (Allowance), is ranked beside the stated
batch as an automatic alternative (`b21`, "found by sizing"): a signer read "rank it before signing" as "do not
sign". Without a target a batch only trades each user's speed for money, which the
scenario does not price: the report says what another would change and how to rank it."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

from . import alternatives
from .render.format import human
from .results import Decision, Option
from .schema import Scenario, Value

if TYPE_CHECKING:
    from .evaluate import Results

# Batches tried: powers of two up to a runtime's usual ceiling, each device's best batch within the per-token target
# and, for the ranked search, its best batch within nine tenths of it.
CANDIDATES = tuple(2 ** k for k in range(11))
SERVED = ("generate", "forward")     # a served batch (a training batch is the optimiser's: another question)
VARIANTS = ("fleet", "busy_hours")   # the options a batch changes (the API's price does not)
GAIN = 0.05          # a saving under 5 % is within rounding of the prices: not worth a sentence, nor an option
TIGHT = 0.10         # a target met with less than a tenth of it to spare: named, and never ranked automatically

# Per kind: the quantities of a latency (the first present), the input of its target, and what the target is called.
TARGETS = {"generate": ((("token_interval",), "targets.per_token_p95", "time between tokens"),
                        (("ttft_p95",), "targets.ttft_p95", "time to first token")),
           "forward": ((("response_p95", "latency"), "targets.latency_p95", "request latency"),)}


@dataclass(frozen=True)
class Allowance:
    """The share of each latency target a batch sizing ranks may use on a device: nine tenths, or the median speed of
    the device's published runs for the kind of work where it has enough of them and it is lower (a batch found at a
    tenth to spare missed its target in 31 % of chat-70b-fp8's draws: the MI300X's runs median 0.81x)."""
    share: float
    median: float | None = None     # the median measured / predicted speed where it sets the share
    runs: int = 0                   # how many published runs it is the median of

    def words(self) -> str:
        """'meets each latency target even at 0.809x the predicted speed (the median of its 18 published runs)' or
        'leaves a tenth of each latency target to spare'."""
        if self.median is None:
            return "leaves a tenth of each latency target to spare"
        return (f"meets each latency target even at {self.median:.3f}x the predicted speed (the median of its "
                f"{self.runs} published runs)")


def device_speeds(r: Results, device: str, kind: str) -> list[float]:
    """The measured / predicted speeds of the device's published runs of the kind of work."""
    from .catalog import device_runs
    from .narrative.common import catalog_id
    from .narrative.margin import KIND_RUNS
    d = r.scenario.devices.get(device)
    return device_runs(KIND_RUNS.get(kind, ())).get(catalog_id(d), []) if d is not None else []


def allowance(r: Results, device: str, kind: str) -> Allowance:
    """How much of each latency target a batch sizing ranks on `device` may use (Allowance)."""
    import statistics

    from .narrative.margin import MEDIAN_RUNS
    runs = device_speeds(r, device, kind)
    if len(runs) >= MEDIAN_RUNS and statistics.median(runs) < 1 - TIGHT:
        return Allowance(statistics.median(runs), statistics.median(runs), len(runs))
    return Allowance(1 - TIGHT)


@dataclass(frozen=True)
class Hint:
    option: Option               # the option as ranked at the stated batch
    batch: int                   # the batch where it costs least (or first qualifies)
    value: float                 # its cost there
    stated: int                  # the scenario's batch
    now: float | None            # the device's best cost as ranked (None: none of its options qualifies)
    tight: str = ""              # a latency target it meets with little to spare, in words ('' when none)
    now_batch: int = 0           # the batch of the device's best as ranked (0: the stated one)
    variants: tuple[str, ...] = ()   # the ways of paying that save GAIN there against the same way at the stated batch


def kind_of(r: Results, wid: str) -> str | None:
    return next((p.kind for p in r.pairs if p.workload == wid), None)


def targeted(r: Results, wid: str) -> bool:
    """Whether the workload states a latency target (its batch then is sizing's to choose within it)."""
    return any(f"workload.{wid}.{target}" in r.inputs for _, target, _ in TARGETS.get(kind_of(r, wid) or "", ()))


def search(r: Results, dec: Decision, spare: bool = False) -> list[Hint]:
    """Per device, its best option at another batch when that costs GAIN less than its best as ranked, or qualifies
    where none of its options does; the largest savings first (qualifying ones after them). Money objectives of
    served work only; the decision's own workload (an alternative that sets its own batch is its own question).
    `spare`: only batches that leave TIGHT of each latency target (the ones sizing ranks itself)."""
    key = f"workload.{dec.workload}.batch"
    kind = kind_of(r, dec.workload)
    if dec.maximise or "USD" not in dec.unit or key not in r.inputs or kind not in SERVED:
        return []
    stated = int(r.inputs[key].value.value)
    own = [o for o in dec.options if o.workload == dec.workload and o.variant in VARIANTS]
    devices = list(dict.fromkeys(o.device for o in own))
    ranked = {d: ranked_batches(r, dec.workload, d) for d in devices}
    best_batches = {int(b) for p in r.pairs if p.workload == dec.workload
                    and isinstance(b := p.values.get("best_batch"), float) and b >= 1}
    allowed = {d: allowance(r, d, kind) for d in devices}
    if spare:
        best_batches |= spare_batches(r, dec.workload, {d: a.share for d, a in allowed.items()})
    tried = sorted(b for b in {*CANDIDATES, *best_batches} if b != stated and any(b not in ranked[d] for d in devices))
    qids = [q for quantities, _, _ in TARGETS[kind] for q in quantities]
    fits = {d: alternatives.fit_for(r.scenario.workloads, dec.workload, d) for d in devices}   # the stated batch on
    runs_on = {d: (dec.workload, *((f.id,) if f else ())) for d, f in fits.items()}         # the devices that hold it
    watched = tuple(f"{w}/{d}/{q}" for d in devices for w in runs_on[d] for q in qids)
    from .evaluate import decide_each_with
    runs = decide_each_with(r, [(key, float(b)) for b in tried], r.decisions.index(dec), watched)
    batch_of = {w.id: int(w.get("batch")) for w in alternatives.of(r.scenario.workloads, dec.workload) if w.found}
    hints = []
    for device in devices:
        held = runs_on[device]                      # a new user's 70B embedder held by 2 H100s met its target only at
        mine = [o for o in dec.options if o.workload in held and o.device == device    # batch 1: searched there too
                and o.variant in VARIANTS]
        own_batches = batch_alternatives(r, dec.workload, device)      # the scenario's own, a snippet pasted
        standing = [o for o in dec.options if o.device == device and o.variant in VARIANTS and o.passes
                    and o.value is not None and (o.workload in held or o.workload in batch_of
                                                 or o.workload in own_batches)]
        now = min(standing, key=lambda o: o.value, default=None)
        ranked_at = {**batch_of, **own_batches}.get(now.workload, 0) if now is not None else 0
        best = held_all_month = None
        fleet_at: dict[int, float] = {}               # the device's cheapest fleet held all month at each batch
        for b, (d, cells) in zip(tried, runs):
            if d is None or b in ranked[device]:
                continue
            tights = {w: tight_words(r, w, device, cells) for w in held}
            kept = [o for o in mine if not (spare and (tights[o.workload] or short_of(r, o.workload, device, cells,
                                                                                         allowed[device].share)))]
            there = {o.id: x for o in kept if (x := next((y for y in d.options if y.id == o.id), None)) is not None
                     and x.passes and x.value is not None}
            saving = tuple(o.variant for o in kept if o.id in there and
                           (not o.passes or o.value is None or there[o.id].value < o.value * (1 - GAIN)))
            for o in mine:
                x = there.get(o.id)
                if x is None:
                    continue
                hint = Hint(o, b, x.value, stated, now.value if now is not None else None, tights[o.workload],
                            ranked_at, saving)
                if best is None or x.value < best.value:
                    best = hint
                if o.variant == "fleet":
                    fleet_at[b] = min(fleet_at.get(b, math.inf), x.value)
                    if "fleet" in saving and (held_all_month is None or x.value < held_all_month.value):
                        held_all_month = replace(hint, variants=("fleet",))
        if best is not None and (best.now is None or best.value < best.now * (1 - GAIN)):
            hints.append(best)
            if spare and held_all_month is not None and held_all_month.batch != best.batch and \
                    held_all_month.value < fleet_at.get(best.batch, math.inf) * (1 - GAIN):
                hints.append(held_all_month)  # the batch held all month at least cost, where the cheapest batch's
                # own fleet costs more (a finance reviewer found batch 256's 4 H100s beside batch 128's 5: the two
                # batches tie on demand at the one-replica minimum)
        elif spare and held_all_month is not None and now is not None and now.variant != "fleet" \
                and held_all_month.value <= now.value:
            hints.append(held_all_month)      # devices held all month for no more than the on-demand floor, which
            # assumes they can be had the moment traffic rises: ranked beside it (a procurement officer found the
            # MI300X at batch 64 in the sweep, 2 devices all month for the floor's $2,703, and asked why not)
    hints.sort(key=lambda h: (h.now is None, h.value - h.now if h.now is not None else h.value))
    return hints


def spare_batches(r: Results, wid: str, shares: dict[str, float]) -> set[int]:
    """Each device's best batch within its share of the per-token target (the engine's best batch runs at the target
    itself): the largest batch that may leave the rest to spare. One engine run per share."""
    from .evaluate import scalar, what_if
    target = f"workload.{wid}.targets.per_token_p95"
    if target not in r.inputs:
        return set()
    out = set()
    for share in sorted(set(shares.values())):
        env = what_if(r, {target: r.inputs[target].value.value * share})
        for p in r.pairs:
            b = scalar(env.get(f"{wid}/{p.device}/best_batch")) if p.workload == wid and shares.get(p.device) == share \
                else None
            if isinstance(b, float) and b >= 1:
                out.add(int(b))
    return out


@dataclass(frozen=True)
class Latency:
    """A stated latency target of a workload and a pair's figure for it."""
    qid: str            # the quantity that has the figure ('token_interval')
    value: float        # the figure, s
    target: float       # the target, s
    words: str          # what the target is called ('time between tokens')
    key: str            # the target's input ('workload.chat.targets.per_token_p95')

    def said(self) -> str:
        """'time between tokens 49.1 ms against the 50 ms target'."""
        return f"{self.words} {human(self.value, 's', 'ms')} against the {human(self.target, 's', 'ms')} target"


def latencies(r: Results, wid: str, value_of: Callable[[str], Any], kind: str | None = None) -> list[Latency]:
    """Each latency target the workload states, with the first of its quantities `value_of` (quantity id -> value)
    has a figure for; in TARGETS' order (per token first)."""
    out = []
    for quantities, target, words in TARGETS.get(kind or kind_of(r, wid) or "", ()):
        q, v = next(((q, x) for q in quantities if isinstance(x := value_of(q), float)), (None, None))
        t = r.inputs.get(key := f"workload.{wid}.{target}")
        if v is not None and t is not None and t.value.value > 0:
            out.append(Latency(q, v, t.value.value, words, key))
    return out


def at(cells: dict, wid: str, device: str) -> Callable[[str], Any]:
    """A pair's quantities in a what-if's cells ('chat/h100/token_interval'), by quantity id."""
    return lambda q: cells.get(f"{wid}/{device}/{q}")


def short_of(r: Results, wid: str, device: str, cells: dict, share: float) -> bool:
    """Whether a batch uses more than `share` of a stated latency target on the device."""
    return any(x.value > share * x.target for x in latencies(r, wid, at(cells, wid, device)))


def tight_words(r: Results, wid: str, device: str, cells: dict) -> str:
    """The latency targets a batch meets with less than TIGHT to spare: 'time between tokens 49.1 ms against the 50
    ms target' (a procurement reviewer ranked the suggested batch and found it missed its target in two thirds of
    the simulated cases)."""
    return close_words(r, wid, at(cells, wid, device), TIGHT)


def close_words(r: Results, wid: str, value_of: Callable[[str], Any], spare: float, kind: str | None = None) -> str:
    """The latency targets met with less than `spare` of them to spare, in words, joined by 'and' ('' for none)."""
    return " and ".join(x.said() for x in latencies(r, wid, value_of, kind) if 0 <= 1 - x.value / x.target < spare)


def ranked_batches(r: Results, wid: str, device: str | None = None) -> set[int]:
    """The batches the workload's alternatives already rank (those that change its batch and nothing else, or, on
    `device`, its batch and that device's count, as the snippet sizing prints for a batch on the devices that hold
    the model: a new user pasted `{b4: {batch: 4, devices: {mi300x: 8}}}` and was told to add it again), on `device`
    where one is given (a batch sizing found is ranked on the devices it was found for)."""
    return set(batch_alternatives(r, wid, device).values())


def batch_alternatives(r: Results, wid: str, device: str | None = None) -> dict[str, int]:
    """The alternatives ranked_batches counts, by workload id, with their batch."""
    out = {}
    counts = {"devices", f"devices.{device}"} if device else set()
    for w in alternatives.of(r.scenario.workloads, wid):
        given = {k: v for k, v in alternatives.given_by(r.scenario.workloads, w).items() if k != "title"}
        if "batch" in given and set(given) - {"batch"} <= counts and \
                (device is None or alternatives.ranked_on(w, device)):
            out[w.id] = int(float(given["batch"].value))
    return out


def found(scn: Scenario, r: Results) -> Scenario | None:
    """The scenario with an automatic alternative for each batch that some device serves a decided workload at for
    GAIN less than at the stated batch, leaving TIGHT of each latency target to spare: `b26` of workload `chat`
    (workload `chat-b26`), ranked on the devices it was found for. None when no such batch."""
    adds: dict[str, dict[int, list[str]]] = {}
    held: dict[tuple[str, int], dict[str, Value]] = {}     # a batch found on the devices that hold it: their count
    for dec in r.decisions:
        w = scn.workloads.get(dec.workload)
        if w is None or w.alternative_of or not targeted(r, w.id):
            continue
        for h in search(r, dec, spare=True):
            devices = adds.setdefault(w.id, {}).setdefault(h.batch, [])
            devices += [(h.option.device, v) for v in h.variants or (h.option.variant,)
                        if (h.option.device, v) not in devices]
            if h.option.workload != w.id:                   # found on the automatic `fit`: its devices come too
                count = scn.workloads[h.option.workload].values[f"devices.{h.option.device}"]
                held.setdefault((w.id, h.batch), {})[f"devices.{h.option.device}"] = count
    if not adds:
        return None
    workloads, made = dict(scn.workloads), {}
    for wid, batches in adds.items():
        root = workloads[wid]
        for b, ways in sorted(batches.items()):
            devices = list(dict.fromkeys(d for d, _ in ways))
            name = f"b{b}"                       # as the report's snippet names a batch (and short in a formula)
            if name in alternatives.changes(root) or f"{wid}-{name}" in workloads:
                name += "-auto"
            kind = kind_of(r, wid) or ""
            why = "; ".join(f"on the {scn.devices[d].get('name') or d}, the cheapest batch that "
                            f"{allowance(r, d, kind).words()}" for d in devices)
            v = Value(b, "", str(b), scn.file, root.line, root.col, f"automatic: {why}")
            given = {"batch": v, **held.get((wid, b), {})}
            root = replace(root, values={**root.values, **{f"alternatives.{name}.{k}": x for k, x in given.items()}})
            alt = replace(alternatives.variant(root, name, given), automatic=True, found=tuple(devices),
                          found_as=tuple(ways))
            title = f"{root.get('title') or root.id} at batch {b}, found by sizing"
            alt.values["title"] = replace(alt.values["title"], value=title, text=title)
            made.setdefault(wid, []).append(alt)
        workloads[wid] = root
    out, ids = {}, list(workloads)
    for i, wid in enumerate(ids):
        out[wid] = workloads[wid]
        owner = workloads[wid].alternative_of or wid
        following = workloads[ids[i + 1]] if i + 1 < len(ids) else None
        if owner in made and (following is None or (following.alternative_of or following.id) != owner):
            out.update((a.id, a) for a in made[owner])       # after the workload's last alternative
    return replace(scn, workloads=out)
