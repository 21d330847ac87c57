"""The method: formulas printed from the graph, and the inputs they name."""

from __future__ import annotations

import statistics

from ... import currency
from ... import formulas as F
from ... import kinds as K
from ...evaluate import Results
from ...formulas.graph import QuantityDef
from ...formulas.train_at import SAME_AS
from ...narrative import used_keys
from ..format import display_unit, number, percent
from .context import MethodEntry, MethodGroup


def method(r: Results) -> tuple[MethodGroup, ...]:
    """The formulas actually used, printed from the formula graph, one group per workload kind; each quantity's
    unit is the one the report shows it in (the formulas compute in SI base units)."""
    out = []
    for kind in dict.fromkeys(p.kind for p in r.pairs):
        pairs = [p for p in r.pairs if p.kind == kind]
        variants: dict[str, dict[str, list[str]]] = {}
        found: dict[str, QuantityDef] = {}
        for p in pairs:
            for x in p.planned:
                if isinstance(x.expr, F.Missing) or x.d.id in p.absent:
                    continue
                found.setdefault(x.d.id, x.d)
                variants.setdefault(x.d.id, {}).setdefault(currency.units(F.to_text(x.expr)), []).append(
                    (p.workload, p.device))
        entries = []
        for qid, d in found.items():
            forms = variants[qid]
            if qid in SAME_AS:                # a layout at another count: its formula is another's, said so
                forms = {SAME_AS[qid]: []}
            texts = tuple(t if len(forms) == 1 else f"{t}   [{where(pairs_at, forms)}]" for t, pairs_at in forms.items())
            shown = display_unit([p.values.get(qid) for p in pairs], d.unit, d.display)
            unit = currency.label(shown.label) if shown.label else "–"
            entries.append(MethodEntry(qid, unit, d.description, texts))
        if any(p.compared for p in pairs):
            c = next(x.d for p in pairs for x in p.compared)
            entries.append(MethodEntry("speedup_vs_<device>", "–", "speed-up against each other device",
                                       (c.description.rsplit(" (", 1)[0],)))
        out.append(MethodGroup(K.get(kind).words, tuple(entries)))
    return tuple(out)


def where(pairs: list[tuple[str, str]], forms: dict[str, list[tuple[str, str]]]) -> str:
    """Where a formula's form is used: its devices ('h100, mi300x'), or where another form has the same devices
    (two workloads of one kind), its workloads with them ('tune-lora: h100, mi300x': a reviewer read the same tag
    on both forms of the trained parameters)."""
    devices = list(dict.fromkeys(d for _, d in pairs))
    same = sum(list(dict.fromkeys(d for _, d in others)) == devices for others in forms.values()) > 1
    if not same:
        return ", ".join(devices)
    return "; ".join(f"{w}: {', '.join(dict.fromkeys(d for x, d in pairs if x == w))}"
                     for w in dict.fromkeys(w for w, _ in pairs))


def constants(r: Results) -> tuple[tuple[str, str, str], ...]:
    """The named constants the formulas use: name, value and meaning."""
    names: dict[str, None] = {}
    for p in r.pairs:
        for x in p.planned:
            if not isinstance(x.expr, F.Missing):
                names.update(dict.fromkeys(c.name for c in consts(x.expr) if c.name))
    out = []
    for name in names:
        c, meaning = F.NAMED[name]
        shown = f"{c.value:g}" if 0 < abs(c.value) < 1e-4 else number(c.value, 6)
        value = f"{shown} {currency.units(c.unit)}".strip()
        out.append((name, value, meaning))
    return tuple(out)


def consts(e) -> list:
    if isinstance(e, F.Const):
        return [e]
    return [c for a in getattr(e, "args", ()) or (getattr(e, "a", None), getattr(e, "b", None)) if a is not None
            for c in consts(a)]


def glossary(r: Results) -> tuple[tuple[str, str, str], ...]:
    """The input names the formulas use, with their SI unit and meaning."""
    used = used_keys(r.pairs)
    roles = dict.fromkeys(i.role for k, i in r.inputs.items() if k in used)
    return tuple((role, currency.units(F.INPUTS[role].unit) or "–", F.INPUTS[role].description) for role in roles)


CATEGORY_WORDS = {"decode_batch1": "decode at batch 1", "throughput_large_batch": "throughput (every batch size)",
                  "ttft": "time to first token", "encoder_latency": "encoder latency",
                  "encoder_throughput": "encoder throughput", "training": "training"}


FAMILY_WORDS = {"gpu": "GPU", "tpu": "TPU", "accelerator": "accelerator", "cpu": "CPU", "npu": "NPU"}
FAMILY_NAMED = 3            # a family row names its devices when it has this few
MID_BATCH = (8, 64)         # the batches most serving scenarios run at: a row of its own
HELD_APART = 1.25         # a held-out median further than this from all runs' is flagged (the accuracy bar's held-out tolerance)


def trust(r: Results) -> tuple[tuple[str, str, str, str, str], ...]:
    """How far to trust the estimates, over the published runs of the kinds of work present: per category (for
    serving, also the runs at mid-size batches), per compared device with runs of its own (what its risk line
    says), and per family of the devices compared: how many, their measured / predicted speed (median and range),
    and the median of the runs no default was chosen from (held out)."""
    return tuple(row(label, group) for label, group in trust_groups(r))


def trust_groups(r: Results) -> list[tuple[str, list[dict]]]:
    """The trust table's rows as (label, published runs), rows without runs left out."""
    from ...catalog import accuracy_runs
    from ...narrative.common import device_name
    from ...narrative.common import catalog_id

    kinds = dict.fromkeys(p.kind for p in r.pairs)
    cats = categories(r)
    runs = [x for x in accuracy_runs() if x["category"] in cats]
    groups = [(CATEGORY_WORDS.get(cat, cat), [x for x in runs if x["category"] == cat]) for cat in cats]
    if "generate" in kinds:
        lo, hi = MID_BATCH
        groups.insert(2, (f"throughput at batch {lo}-{hi}", [x for x in runs if x["category"] == "throughput_large_batch"
                                                            and lo <= x.get("batch", 0) <= hi]))
    devices = [r.scenario.devices[d] for d in r.scenario.compare]
    groups += [(device_name(r, d.id), [x for x in runs if x["device"] == catalog_id(d)])
               for d in devices]
    groups += [(family_label(f, family), family) for f in dict.fromkeys(d.get("kind") for d in devices)
               if f in FAMILY_WORDS and (family := [x for x in runs if x.get("family") == f])]
    rows: dict[str, list[dict]] = {}
    for label, group in groups:             # two devices of one scenario may be the same catalog device
        rows.setdefault(label, group)
    return [(label, group) for label, group in rows.items() if group]


def family_label(kind: str, runs: list[dict]) -> str:
    """'all GPUs'; a family of a few devices names them: 'all accelerators (Intel Gaudi 2, Intel Gaudi 3)'."""
    from ...narrative.common import display_name
    from ...scenario import catalog

    entries = catalog()[0]
    names = sorted(display_name(entries[d]).split(" (")[0] for d in dict.fromkeys(x["device"] for x in runs)
                   if d in entries)
    listed = f" ({', '.join(names)})" if 1 < len(names) <= FAMILY_NAMED else ""
    return f"all {FAMILY_WORDS[kind]}s{listed}"


def categories(r: Results) -> tuple[str, ...]:
    """The accuracy categories of the published runs that speak for the kinds of work present."""
    from ...narrative.margin import KIND_RUNS

    return tuple(dict.fromkeys(c for kind in dict.fromkeys(p.kind for p in r.pairs) for c in KIND_RUNS.get(kind, ())))


def row(label: str, runs: list[dict]) -> tuple[str, str, str, str, str]:
    speeds = sorted(x["speed"] for x in runs)
    held = [x["speed"] for x in runs if x.get("held_out")]
    return (label, str(len(speeds)), f"{statistics.median(speeds):.2f}x",
            f"{speeds[0]:.2f}x" if len(speeds) == 1 else f"{speeds[0]:.2f}x to {speeds[-1]:.2f}x",
            f"{statistics.median(held):.2f}x ({len(held)})" if held else "–")


def trust_words(r: Results) -> str:
    """How many of the runs in the trust table came within the close-call margin of the prediction, and where the
    margin comes from."""
    from ...catalog import within
    from ...narrative.margin import CLOSE_CALL, KIND_RUNS

    near, runs = within(categories(r), CLOSE_CALL)
    if not runs:
        return ""
    served, serving = within(KIND_RUNS["generate"], CLOSE_CALL)
    factor = 1 + CLOSE_CALL
    out = (f"{near} of these {runs} runs ({percent(near / runs, 2)}), on every device in sizing's catalog (the device "
           f"and family rows show those compared here), came within a factor of {factor:g} of the predicted speed "
           f"({1 / factor:.2f}x to {factor:.2f}x). Where the recommendation leads an option on another device by "
           f"less than a factor of {factor:g}, page 1 calls it a close call: a fixed rule of sizing, set from the "
           "serving runs, "
           f"{percent(served / serving, 2)} of which fall inside it (two options on one device are not: an error in "
           "its speed estimate moves both alike).")
    if near < runs / 2:
        out += " Fewer fall inside it for this kind of work: even a larger lead can be reversed."
    return out


def trust_apart(r: Results) -> str:
    """Below the trust table: the rows whose held-out runs came out apart from the rest (apart_words)."""
    return apart_words(trust_groups(r))


def apart_words(groups: list[tuple[str, list[dict]]]) -> str:
    """A sentence naming the rows whose held-out median lies more than HELD_APART from the median of all their
    runs (at least two held out): there the defaults suit the runs they were chosen from better than others."""
    apart = []
    for label, runs in groups:
        held = [x["speed"] for x in runs if x.get("held_out")]
        if len(held) < 2:
            continue
        whole, kept = statistics.median(x["speed"] for x in runs), statistics.median(held)
        if max(whole, kept) / min(whole, kept) > HELD_APART:
            apart.append(f"{label} (held-out runs {kept:.2f}x the predicted speed, all runs {whole:.2f}x)")
    if not apart:
        return ""
    return (f"In these rows the held-out runs (kept aside, not used to choose the defaults) differed by more than "
            f"{HELD_APART:g}x from all the row's runs, so the estimates fit the runs they came from better than new "
            f"ones and are less sure than the row suggests; where they matter, measure before buying: "
            f"{'; '.join(apart)}.")
