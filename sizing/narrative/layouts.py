"""Another layout: where a training run would cost less laid out another way than the scenario states: other
tensor-parallel ways, activations recomputed or not, more devices. The decision stays at the stated layout (a
layout is the scenario's to choose: its runtime, its people's habits); these sentences say what another would
change, and the alternative that ranks it.

Each of the decided run's layouts (the workload's and each of its alternatives') is tried in one engine run: tensor
ways 1, 2, 4 and 8 with recompute off and on at the devices the engine gives each, then the cheapest of those on
each device, and each that misses a requirement there, at twice and four times its devices (a run freed of sharded
weights or of recomputing for room can cost less on more devices; one whose sharded weights' gathers outlast its
deadline may make it on more). The stated layout is evaluated in the same run, so like is compared with like."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import alternatives
from ..batch_search import TIGHT
from ..cross_checks import splits_heads
from ..evaluate import Results, evaluate_once
from ..render.format import human, number, percent
from ..results import Decision, Option
from ..schema import Entity, Value
from .batches import GAIN, SHOWN, batch_flip, batch_hints, batch_words
from .common import shown_gap
from .memo import option_words
from .training import spare

TENSOR = (1, 2, 4, 8)
MORE = (2, 4)            # times the devices the engine gives the cheapest layout
DAY = 86400.0            # s
TIE = 0.005              # costs within 0.5 % are one cost: the layout that changes less is named


@dataclass(frozen=True)
class Layout:
    """A layout of the run (`run`: the workload or one of its alternatives) on one device."""

    run: str                     # the workload's id or its alternative's
    device: str
    tensor: int
    recompute: bool
    devices: int | None          # None: the devices the engine gives
    value: float | None = None   # its cost where it meets every requirement
    count: int = 0               # the devices it takes
    share: float = 0.0           # the share of layers recomputed to make room, recompute off
    sharded: bool = False        # its weights sharded too (ZeRO-3, FSDP)
    duration: float = 0.0        # its training time, s
    whole: Layout | None = None  # where its devices do not fill whole servers, the run on every device of them

    def changes(self, stated: Layout) -> dict[str, str]:
        """What it changes against the stated layout, as the scenario language writes it."""
        out = {}
        if self.tensor != stated.tensor:
            out["parallel"] = f"{{tensor: {self.tensor}}}"
        if self.recompute != stated.recompute:
            out["recompute"] = str(self.recompute).lower()
        if self.devices is not None:
            out["devices"] = str(self.devices)
        return out


@dataclass(frozen=True)
class Hint:
    better: Layout               # the cheapest layout on the device, or the first that meets every requirement
    stated: Layout               # the layout as written, in the same engine run (value None: it fails)
    alternative: str             # the run's alternative's id ("" for the workload as written)
    given: dict[str, str]        # what that alternative sets, as written ({} for the workload)


def layout_hints(r: Results, dec: Decision) -> list[Hint]:
    """Per run and device, the cheapest layout when it costs GAIN less than the stated one or qualifies where that
    does not, and costs GAIN less than every option the decision ranks on the device already; the cheapest first,
    at most SHOWN. Money objectives of a training workload only."""
    scn = r.scenario
    root = scn.workloads.get(dec.workload)
    if root is None or root.get("kind") != "train" or dec.maximise or "USD" not in dec.unit:
        return []
    devices = list(dict.fromkeys(o.device for o in dec.options if o.variant == "fleet"))
    runs = [root, *(w for w in alternatives.of(scn.workloads, root.id) if not w.automatic)]
    stated = {(w.id, d): Layout(w.id, d, int(w.get("parallel.tensor") or 1), bool(w.get("recompute")), None)
              for w in runs for d in devices}
    tried = laid_out(r, dec, root, runs, list(stated.values()))
    hints = []
    for key, was in stated.items():
        now = next(x for x in tried if (x.run, x.device) == key and x.devices is None
                   and (x.tensor, x.recompute) == (was.tensor, was.recompute))
        mine = [x for x in tried if (x.run, x.device) == key and x.value is not None]
        if not mine:
            continue
        low = min(x.value for x in mine)
        best = roomier(r, min((x for x in mine if x.value <= low * (1 + TIE)),
                              key=lambda x: (len(x.changes(now)), x.count, x.value)))
        w = scn.workloads[key[0]]
        ranked = {written_as(scn, x, best.device) for x in runs}       # an alternative that ranks it already
        layout = (written_as(scn, w, best.device)[0], best.tensor, best.recompute,
                  best.devices if best.devices is not None else pinned(w, best.device))
        ranked_best = min((o.value for o in dec.options if o.device == best.device and o.variant == "fleet"
                           and o.passes and o.value is not None), default=None)      # on any run already ranked
        if layout not in ranked and (now.value is None or best.value < now.value * (1 - GAIN)) and \
                (ranked_best is None or best.value < ranked_best * (1 - GAIN)):
            given = {k: v.text for k, v in alternatives.given_by(scn.workloads, w).items()}
            hints.append(Hint(best, now, w.alternative, given))
    hints.sort(key=lambda h: h.better.value)
    seen, out = set(), []
    for h in hints:             # a layout reached from two runs (the workload and an alternative it suggested before)
        key = (written_as(scn, scn.workloads[h.better.run], h.better.device)[0], h.better.device, h.better.tensor,
               h.better.recompute, h.better.count)
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out[:SHOWN]


def laid_out(r: Results, dec: Decision, root: Entity, runs: list[Entity], stated: list[Layout]) -> list[Layout]:
    """The stated layouts and every other tried, priced: tensor ways × recompute at the devices the engine gives,
    then the cheapest of those per run and device, and each that fails there, at MORE times their devices."""
    scn = r.scenario
    first = [x for x in (replace(s, tensor=t, recompute=rc) for s in stated for t in TENSOR for rc in (False, True))
             if splits(scn, scn.workloads[x.run], x)]
    tried = priced(r, dec, root, runs, [*stated, *first])
    cheapest: dict[tuple[str, str], Layout] = {}
    for x in tried:
        if x.value is not None and x.devices is None:
            now = cheapest.get((x.run, x.device))
            if now is None or x.value < now.value:
                cheapest[(x.run, x.device)] = x
    failing = [x for x in tried if x.value is None and x.devices is None and x.count > 0]
    wider = list({(x.run, x.device, x.tensor, x.recompute, x.count * m): replace(x, devices=x.count * m)
                  for x in (*cheapest.values(), *failing) for m in MORE}.values())
    return tried + priced(r, dec, root, runs, wider)


def written_as(scn, w: Entity, device: str) -> tuple:
    """A run's layout on `device` beside what it trains: the fields its alternative sets but tensor ways, recompute
    and devices; its tensor ways, recompute and the devices it states (None: the engine gives them)."""
    trains = tuple(sorted((k, str(v.value)) for k, v in alternatives.given_by(scn.workloads, w).items()
                          if k not in ("title", "parallel.tensor", "recompute") and not k.startswith("devices")))
    return trains, int(w.get("parallel.tensor") or 1), bool(w.get("recompute")), pinned(w, device)


def pinned(w: Entity, device: str):
    """The devices a run states for `device` (None: the engine gives them)."""
    return w.get(f"devices.{device}", w.get("devices"))


def splits(scn, w: Entity, x: Layout) -> bool:
    """Whether the run's devices split into the layout's tensor × pipeline ways and its tensor ways split the model's
    attention heads evenly, as runtimes need (a run that states its data-parallel ways states its whole layout: only
    its recompute is tried)."""
    if w.has("parallel.data") and x.tensor != int(w.get("parallel.tensor") or 1):
        return False
    m = scn.models.get(w.get("model"))
    if m is not None and m.has("heads") and not splits_heads(m.get("heads"), m.get("kv_heads", m.get("heads")),
                                                             x.tensor):
        return False
    count = x.devices or pinned(w, x.device)
    return count is None or count % (x.tensor * int(w.get("parallel.pipeline") or 1)) == 0


def priced(r: Results, dec: Decision, root: Entity, runs: list[Entity], layouts: list[Layout]) -> list[Layout]:
    """`layouts` with their cost (None where a requirement fails) and devices, from one engine run of the scenario
    with each as an alternative of the decided workload."""
    scn = r.scenario
    at = scn.decisions[r.decisions.index(dec)]
    added: dict[str, dict[str, Value]] = {}
    for i, x in enumerate(layouts):
        w = next(w for w in runs if w.id == x.run)
        v = (lambda value, text: Value(value, "", text, scn.file, w.line, w.col, "another layout"))
        given = {**alternatives.given_by(scn.workloads, w), "parallel.tensor": v(x.tensor, str(x.tensor)),
                 "recompute": replace(v(x.recompute, str(x.recompute).lower()), unit=None)}
        if x.devices is not None:
            given[f"devices.{x.device}"] = v(x.devices, str(x.devices))
        given.pop("title", None)
        added[f"layout-{i}"] = given
    values = dict(root.values)
    for name, given in added.items():
        values.update({f"alternatives.{name}.{k}": v for k, v in given.items()})
    base = replace(root, values=values)
    workloads = {root.id: base, **{f"{root.id}-{n}": alternatives.variant(base, n, g) for n, g in added.items()}}
    out = evaluate_once(replace(scn, workloads=workloads, decisions=[at], sweep=None, uncertainty=None))
    options = {(o.workload, o.device): o for o in out.decisions[0].options if o.variant == "fleet"}
    priced_ = []
    for i, x in enumerate(layouts):
        o = options.get((f"{root.id}-layout-{i}", x.device))
        got = out.pair(f"{root.id}-layout-{i}", x.device).values
        count, share, took = got.get("devices"), got.get("recompute_share"), got.get("duration")
        ok = o is not None and o.passes and o.value is not None
        used, n, there = got.get("domains_used"), got.get("whole_domain_devices"), got.get("cost_whole_domains")
        whole = replace(x, devices=int(n), value=there, count=int(n), share=share_of(got.get(
            "recompute_share_for_servers")), sharded=got.get("sharded_for_servers") is True,
            duration=got.get("duration_whole_domains") or 0.0) if isinstance(used, float) and used != int(used) and \
            isinstance(n, float) and isinstance(there, float) else None
        priced_.append(replace(x, value=o.value if ok else None, count=int(count) if isinstance(count, float) else 0,
                               share=share_of(share), sharded=got.get("weights_sharded") is True,
                               duration=took if isinstance(took, float) else 0.0, whole=whole))
    return priced_


def written(h: Hint) -> str:
    """The alternative that ranks the hint's layout, as the scenario language writes it:
    'tp4-no-recompute: {parallel: {tensor: 4}, recompute: false}'; more devices are one count for every device, as a
    training run takes them ('no-recompute-48-devices: {recompute: false, devices: 48}'); an alternative's layout
    repeats its fields, and its title with what the layout changes (else the workload's title would name it)."""
    changes = h.better.changes(h.stated)
    name = [h.alternative] if h.alternative else []
    name += [f"tp{h.better.tensor}"] if "parallel" in changes else []
    name += [("recompute" if h.better.recompute else "no-recompute")] if "recompute" in changes else []
    name += [f"{h.better.devices}-devices"] if "devices" in changes else []
    fields = {**{k: v for k, v in h.given.items() if k != "title"}, **changes}
    if "title" in h.given:
        fields["title"] = '"' + f"{h.given['title']}, {phrase(h, room=False)}".replace('"', "'") + '"'
    return f"{'-'.join(name)}: {{{', '.join(f'{k}: {v}' for k, v in fields.items())}}}"


def phrase(h: Hint, room: bool = True) -> str:
    """What the layout changes, in words: 'tensor 4, recompute off'; 'recompute off (12 % of the layers recomputed
    to make room)', 'recompute off (its weights sharded to make room)'; `room` False: without the parenthesis."""
    b, changes = h.better, h.better.changes(h.stated)
    why = "" if b.recompute or not room else " (its weights sharded to make room)" if b.sharded else \
        f" ({b.share * 100:.0f} % of the layers recomputed to make room)" if b.share else ""
    parts = [f"tensor {b.tensor}"] if "parallel" in changes else []
    parts += [f"recompute {'on' if b.recompute else 'off'}{why}"] if "recompute" in changes else []
    parts += [f"{b.devices} devices"] if "devices" in changes and not room else []
    return ", ".join(parts) or "more devices"


def took(x: Layout, hours: bool = False, deadline: float | None = None) -> str:
    """'21 devices for 29.73 days (0.9 % of the deadline to spare)'; `hours`: the time in hours (a sentence states
    each of its times in one unit)."""
    time = f"{number(x.duration / 3600)} h" if hours else human(x.duration, "s", "days")
    left = f" ({spare(x.duration, deadline)})" if deadline else ""
    return f"{x.count} device{'' if x.count == 1 else 's'} for {time}{left}"


def share_of(share) -> float:
    """The share of layers recomputed for room, where there is one (0 otherwise)."""
    return share if isinstance(share, float) and 0 < share <= 1 else 0.0


def servers_clause(x: Layout, unit: str, hours: bool = False, deadline: float | None = None) -> str:
    """Where a layout's devices do not fill whole servers, the run on every device of them: '; on the 40 devices of
    whole servers, 36.07 days (9.83 % of the deadline to spare), $86,566' (a procurement reviewer read counts priced
    as if devices were sold one by one); '' where they fill them."""
    w = x.whole
    if w is None:
        return ""
    time = f"{number(w.duration / 3600)} h" if hours else human(w.duration, "s", "days")
    left = "" if not deadline else " (past the deadline)" if w.duration > deadline else f" ({spare(w.duration, deadline)})"
    return f"; on the {w.count} devices of whole servers, {time}{left}, {human(w.value, unit)}"


def in_hours(*xs: Layout) -> bool:
    return any(x.duration < DAY for x in xs)


def deadline(r: Results, run: str) -> float | None:
    """The run's deadline, s (None: none given)."""
    v = r.inputs.get(f"workload.{run}.deadline")
    return float(v.value.value) if v is not None else None


def run_name(r: Results, h: Hint) -> str:
    """The device, and what the run's alternative changes as the options are named: 'Instinct MI300X (method lora,
    trainable 1 %)'."""
    return option_words(r, Option(h.better.device, None, (), None, workload=h.stated.run, alternative=h.alternative))


def layout_words(r: Results, dec: Decision, hints: list[Hint] | None = None) -> str:
    """'As the scenario states it, the run uses tensor 2 with recompute on. With tensor 1, recompute off the B200 SXM
    180GB would take 21 devices for 29.73 days and cost $56,198 ($21,162 less than as stated: 30 devices for 28.65
    days, $77,360); ... The first beats the recommendation ($77,360): rank it before deciding. To rank them, add
    them as alternatives of the workload: alternatives: {tp1-no-recompute: {parallel: {tensor: 1}, recompute:
    false}}.' '' when no other layout does better. `hints`: layout_hints' answer where the caller has it."""
    hints = layout_hints(r, dec) if hints is None else hints
    if not hints:
        return ""
    parts = []
    for h in hints:
        cost, hours = human(h.better.value, dec.unit), in_hours(h.better, h.stated)
        limit = deadline(r, h.better.run)
        if h.stated.value is not None:
            parts.append(f"with {phrase(h)} the {run_name(r, h)} would take {took(h.better, hours, limit)} and cost "
                         f"{cost} ({shown_gap(h.stated.value, h.better.value, dec.unit)} less than as stated: "
                         f"{took(h.stated, hours)}, {human(h.stated.value, dec.unit)})"
                         f"{servers_clause(h.better, dec.unit, hours, limit)}")
        else:
            parts.append(f"with {phrase(h)} the {run_name(r, h)} would meet every requirement, on "
                         f"{took(h.better, hours, limit)}, at {cost}")
    best = dec.best
    beating = [h for h in hints if best is not None and best.value is not None and h.better.value < best.value]
    beat = len(beating)
    who = "It" if len(hints) == 1 else {1: "The first", 2: "The first two"}.get(beat, "All three")
    close = (f", {'with' if beat == 1 else 'each with'} under {percent(TIGHT)} of the deadline to spare: a run a "
             f"little slower than predicted misses it: rank {'it' if beat == 1 else 'one'} only if that risk is "
             "acceptable.") if beating and all(tight(r, h.better) for h in beating) else ""
    verdict = "" if best is None or best.value is None else (
        f" {who} beat{'s' if beat == 1 else ''} the recommendation ({human(best.value, dec.unit)})" + (close or (
            f": rank {'it' if beat == 1 else 'them'} before deciding.")) if beat else
        f" {'It does not beat' if len(hints) == 1 else 'None of these beats'} the recommendation "
        f"({human(best.value, dec.unit)}).")
    s = hints[0].stated
    added = dict(written(h).split(": ", 1) for h in hints)            # one alternative may rank several devices
    text = "; ".join(parts)
    own = " (beside the alternatives it has)" if any(h.given for h in hints) or any(
        not w.automatic for w in alternatives.of(r.scenario.workloads, dec.workload)) else ""
    rank = (f"To rank {'it' if len(hints) == 1 else 'them'}, add one alternative to the workload{own}"
            if len(added) == 1 else f"To rank them, add these alternatives to the workload{own}")
    return (f"As the scenario states it, the run uses tensor {s.tensor} with recompute {'on' if s.recompute else 'off'}"
            f". {text[0].upper()}{text[1:]}.{verdict} {rank}: alternatives: "
            f"{{{', '.join(f'{k}: {v}' for k, v in added.items())}}}.")


def layout_flip(r: Results, dec: Decision, hints: list[Hint] | None = None) -> str:
    """Page one's line where another layout would beat the recommendation: 'B200 SXM 180GB with tensor 1, recompute
    off: 21 devices for 29.73 days, $56,198, $21,162 less than the $77,360 recommended; rank it before signing.' ''
    otherwise."""
    best = dec.best
    hints = [h for h in (layout_hints(r, dec) if hints is None else hints)
             if best is not None and best.value is not None and h.better.value < best.value]
    if not hints:
        return ""
    h = min(hints, key=lambda h: (tight(r, h.better), h.better.value))      # one with room to spare first
    limit = deadline(r, h.better.run)
    after = (f"but a speed {percent(1 - h.better.duration / limit, 3)} below the prediction misses the deadline: "
             "rank it only if that risk is acceptable" if tight(r, h.better) else "rank it before signing")
    return (f"{run_name(r, h)} with {phrase(h)}: {took(h.better, deadline=limit)}, "
            f"{human(h.better.value, dec.unit)}, "
            f"{shown_gap(best.value, h.better.value, dec.unit)} less than the {human(best.value, dec.unit)} "
            f"recommended{servers_clause(h.better, dec.unit, deadline=limit)}; {after}.")


def roomier(r: Results, x: Layout) -> Layout:
    """A layout with under TIGHT of its deadline to spare whose whole servers leave at least that: on every device of
    them, as an alternative stating their devices ranks it (the 21 B200s that leave 0.4 % of 30 days are 24 on whole
    servers, 12.6 % to spare, for $165 more); the layout itself otherwise."""
    return x.whole if tight(r, x) and x.whole is not None and not tight(r, x.whole) else x


def tight(r: Results, x: Layout) -> bool:
    """Whether a layout finishes with under TIGHT of its run's deadline to spare (a procurement reviewer read '0.402 %
    of the deadline to spare ... rank it before signing': about 3 hours of 30 days, offered as the better deal)."""
    limit = deadline(r, x.run)
    return bool(limit) and 1 - x.duration / limit < TIGHT


def another(r: Results, dec: Decision) -> tuple[str, str, str]:
    """What the decision would gain set up another way, for the report: ('Another layout', the sentences, page
    one's line) for a training run, ('Another batch', ...) for served work; one engine run for both sentences."""
    w = r.scenario.workloads.get(dec.workload)
    if w is not None and w.get("kind") == "train":
        hints = layout_hints(r, dec)
        return "Another layout", layout_words(r, dec, hints), layout_flip(r, dec, hints)
    found = batch_hints(r, dec)
    return "Another batch", batch_words(r, dec, found), batch_flip(r, dec, found)


def another_data(r: Results, dec: Decision) -> dict | None:
    """What `another` says, for JSON: each cheaper setup with its figures and the stated one's, and the alternatives
    that rank them as a mapping to add under the workload's `alternatives`; None where no other setup does better."""
    w = r.scenario.workloads.get(dec.workload)
    if w is not None and w.get("kind") == "train":
        hints = layout_hints(r, dec)
        if not hints:
            return None
        shape = (lambda x: {"tensor": x.tensor, "recompute": x.recompute, "devices": x.count, "duration": x.duration,
                            "value": x.value})
        return {"kind": "layout", "hints": [{"device": h.better.device, "workload": h.stated.run,
                                             "alternative": h.alternative or None, **shape(h.better),
                                             "stated": shape(h.stated)} for h in hints],
                "alternatives": yaml_mapping(layout_words(r, dec, hints))}
    found = batch_hints(r, dec)
    ranked = [{"workload": w.id, "alternative": w.alternative, "batch": int(w.get("batch")), "devices": list(w.found)}
              for w in alternatives.of(r.scenario.workloads, dec.workload) if w.found]
    if not found and not ranked:
        return None
    return {"kind": "batch", "found": ranked,
            "hints": [{"device": h.option.device, "option": h.option.id, "batch": h.batch, "value": h.value,
                       "stated": {"batch": h.stated}, "ranked": {"batch": h.now_batch or h.stated, "value": h.now}}
                      for h in found],
            "alternatives": yaml_mapping(batch_words(r, dec, found)) if found else {}}


def yaml_mapping(words: str) -> dict:
    """The alternatives a sentence ends with ('... alternatives: {b32: {batch: 32}}.'), as a mapping."""
    import yaml
    return yaml.safe_load(words.rpartition("alternatives: ")[2].removesuffix("."))
