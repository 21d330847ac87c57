"""`sizing diff`: two versions of a scenario compared: the inputs that changed, the effect on every headline figure
of every (workload, device) pair, and on each decision (its recommendation, its value, the options' ranks)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Any

from . import formulas as F
from . import kinds as K
from .evaluate import Results
from .render.format import human


@dataclass(frozen=True)
class Change:
    what: str                   # an input key, or workload/device/quantity
    before: Any                 # SI value (None: absent)
    after: Any
    before_text: str
    after_text: str


@dataclass(frozen=True)
class DecisionChange:
    decision: str               # its workload and objective
    before: str | None          # the recommendation
    after: str | None
    before_value: str
    after_value: str
    ranks: tuple[tuple[str, int | None, int | None], ...]      # options whose rank moved
    labels: tuple[tuple[str, str], ...] = ()                      # option id -> its label, as `evaluate` names it

    def label(self, oid: str | None) -> str:
        return dict(self.labels).get(oid, oid) if oid else "none"


@dataclass(frozen=True)
class Diff:
    inputs: tuple[Change, ...]
    figures: tuple[Change, ...]
    decisions: tuple[DecisionChange, ...]
    unchanged: tuple[DecisionChange, ...] = ()     # decisions whose recommendation, figure and ranks hold

    def as_dict(self) -> dict:
        return asdict(self)


def differs(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and not isinstance(a, bool) and not isinstance(b, bool):
        if math.isnan(a) and math.isnan(b):
            return False
        return not math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    return a != b


def shown(qid: str, value: Any) -> str:
    d = F.definition(qid)
    return "absent" if value is None else human(value, d.unit if d else "", d.display if d else None)


def settings(r: Results) -> dict[str, str]:
    """What a scenario chooses rather than measures, as written: the compared devices and each decision's workload,
    objective, requirements and ranked options."""
    out = {"compare": ", ".join(r.scenario.compare),
           "workloads": ", ".join(w.id for w in r.scenario.workloads.values() if not w.alternative_of)}
    added = {(w.alternative_of, w.alternative) for w in r.scenario.workloads.values() if w.automatic}
    for w in r.scenario.workloads.values():             # each alternative as written: 'precision fp8, batch 32'
        for name in dict.fromkeys(k.split(".")[1] for k in w.values if k.startswith("alternatives.")):
            if (w.id, name) in added:
                continue                                # sizing's (`fit`, a batch it found): the decision says it
            out[f"workloads.{w.id}.alternatives.{name}"] = ", ".join(
                f"{k.split('.', 2)[2]} {v.text}" for k, v in w.values.items() if k.startswith(f"alternatives.{name}."))
    for i, dec in enumerate(r.scenario.decisions):
        for field in ("workload", "objective", "require", "options"):
            listed = [v.text for k, v in sorted(dec.values.items()) if k == field or k.startswith(f"{field}[")]
            if listed:
                out[f"decision[{i}].{field}" if len(r.scenario.decisions) > 1 else f"decision.{field}"] = \
                    ", ".join(listed)
    return out


def followed(r: Results, key: str) -> bool:
    """An alternative's input that only follows its workload's, or any of the automatic `fit` (what it sets follows
    from the rest): its change is the workload's, listed once."""
    from . import alternatives

    if alternatives.inherited(r.inputs, r.scenario.workloads, key) is not None:
        return True
    kind, _, rest = key.partition(".")
    w = r.scenario.workloads.get(rest.split(".")[0]) if kind == "workload" else None
    return w is not None and w.automatic


def one_sided(a: Results, b: Results, did: str) -> bool:
    """A device compared on one side only: the compare list's change says it, not each of its inputs and figures."""
    return (did in a.scenario.compare) != (did in b.scenario.compare)


def uncompared(a: Results, b: Results, key: str) -> bool:
    """An input of a device compared on one side only, or of a workload (an alternative) on one side only: the
    compare list's, the workload list's or the alternative's own change says it."""
    kind, _, rest = key.partition(".")
    if kind == "workload":
        return (rest.split(".")[0] in a.scenario.workloads) != (rest.split(".")[0] in b.scenario.workloads)
    return kind == "device" and one_sided(a, b, rest.split(".")[0])


def newly_read(a: Results, b: Results, key: str) -> bool:
    """A device's figure one side reads and the other does not, unchanged: the same in both sides' device (a catalog
    rate at a precision only one side uses), or a family default (the 8-bit efficiency an FP8 alternative brings)."""
    kind, _, rest = key.partition(".")
    if kind != "device" or (key in a.inputs) == (key in b.inputs):
        return False
    did, _, path = rest.partition(".")
    reads, other = (a, b) if key in a.inputs else (b, a)
    v, ent = reads.inputs[key].value, other.scenario.devices.get(did)
    if ent is None:
        return False
    mine = reads.scenario.devices[did].values.get(path)
    same = mine is not None and ent.values.get(path) is not None and not differs(mine.value, ent.values[path].value)
    return same or (mine is None and v.source.startswith("default"))


def unwidened(r: Results, wid: str, did: str) -> bool:
    """An automatic alternative on a device it is not ranked on: `fit` on a device it does not widen is the
    workload's own pair again; a batch sizing found for another device is not an option there."""
    from . import alternatives

    w = r.scenario.workloads.get(wid)
    return w is not None and not alternatives.ranked_on(w, did)


def added_once(a: Results, b: Results, wid: str) -> bool:
    """An automatic alternative (`fit`, a batch sizing found) on one side only."""
    wa, wb = a.scenario.workloads.get(wid), b.scenario.workloads.get(wid)
    return (wa is None) != (wb is None) and (wa or wb).automatic


def path_of(key: str) -> str:
    """An input's key as the scenario language spells its path: 'workloads.chat.batch', 'devices.h100.price'."""
    kind, _, rest = key.partition(".")
    return f"{kind}s.{rest}" if kind in ("device", "workload", "model") else key


def diff(a: Results, b: Results) -> Diff:
    sa, sb = settings(a), settings(b)
    inputs = [Change(k, sa.get(k), sb.get(k), sa.get(k, "absent"), sb.get(k, "absent"))
              for k in dict.fromkeys([*sa, *sb]) if sa.get(k) != sb.get(k)]
    for key in list(dict.fromkeys([*a.inputs, *b.inputs])):
        va, vb = a.inputs.get(key), b.inputs.get(key)
        x, y = (va.value.value if va else None), (vb.value.value if vb else None)
        if uncompared(a, b, key) or newly_read(a, b, key) or (key in a.inputs and followed(a, key)) \
                or (key in b.inputs and followed(b, key)):
            continue
        if differs(x, y):
            inputs.append(Change(path_of(key), x, y, va.value.text if va else "absent",
                                 vb.value.text if vb else "absent"))
    figures = []
    pairs = list(dict.fromkeys([(p.workload, p.device, p.kind) for p in (*a.pairs, *b.pairs)
                                if K.get(p.kind).workload]))
    for wid, did, kind in pairs:
        if one_sided(a, b, did) or unwidened(a, wid, did) or unwidened(b, wid, did) or added_once(a, b, wid):
            continue                      # compared on one side only (the compare list's change says so), or the
                                          # automatic `fit` on a device it gives no more: the workload's figures, or
                                          # an automatic alternative of one side: the decision's ranks say it
        pa, pb = a.pair(wid, did), b.pair(wid, did)
        for qid in K.get(kind).headline:
            x = pa.values.get(qid) if pa else None
            y = pb.values.get(qid) if pb else None
            if differs(x, y):
                figures.append(Change(f"{wid}/{did}/{qid}", x, y, shown(qid, x), shown(qid, y)))
    decisions, unchanged = [], []
    for i in range(max(len(a.decisions), len(b.decisions))):
        da = a.decisions[i] if i < len(a.decisions) else None
        db = b.decisions[i] if i < len(b.decisions) else None
        ranks_a = {o.id: o.rank for o in da.options} if da else {}
        ranks_b = {o.id: o.rank for o in db.options} if db else {}
        moved = tuple((oid, ranks_a.get(oid), ranks_b.get(oid)) for oid in dict.fromkeys([*ranks_a, *ranks_b])
                      if ranks_a.get(oid) != ranks_b.get(oid))
        value = lambda d: shown(d.quantity, d.best.value) if d and d.best else "n/a"      # noqa: E731
        name = (db or da).workload + ": " + (f"{da.quantity} -> {db.quantity}" if da and db and
                                             da.quantity != db.quantity else (db or da).quantity)
        labels = {o.id: o.label for d in (da, db) if d for o in d.options}
        dc = DecisionChange(name, da.recommendation if da else None, db.recommendation if db else None, value(da),
                            value(db), moved, tuple(labels.items()))
        if moved or (da and db and (da.recommendation != db.recommendation or value(da) != value(db))) \
                or not (da and db):
            decisions.append(dc)
        else:
            unchanged.append(dc)
    return Diff(tuple(inputs), tuple(figures), tuple(decisions), tuple(unchanged))


def as_text(d: Diff, first: str, second: str, width: int | None = None) -> str:
    """The changes as tables (paged to `width`, a terminal's columns, where given)."""
    from .render.table import table, wrapped

    lines = wrapped(f"{first} -> {second}", width)
    if not (d.inputs or d.figures or d.decisions):
        return "\n".join(lines) + "\n  no input, figure or decision differs\n"
    if d.inputs:
        lines += ["", f"inputs ({len(d.inputs)} changed):",
                  *("  " + ln for ln in table([["input", "before", "after"],
                                               *([c.what, c.before_text, c.after_text] for c in d.inputs)],
                                              width and width - 2))]
    if d.figures:
        rows = [["workload / device", "figure", "before", "after", "change"]]
        for c in d.figures:
            wid, did, qid = c.what.split("/")
            rows.append([f"{wid} / {did}", qid, c.before_text, c.after_text, change(c.before, c.after)])
        lines += ["", f"figures ({len(d.figures)} changed):", *("  " + ln for ln in table(rows, width and width - 2))]
    for dc in d.decisions:
        lines += ["", *wrapped(f"decision {dc.decision}: {dc.label(dc.before)} ({dc.before_value}) -> "
                               f"{dc.label(dc.after)} ({dc.after_value})"
                               + ("" if dc.before == dc.after else "  RECOMMENDATION CHANGED"), width)]
        lines += [f"  {dc.label(oid)}: rank {r0 if r0 is not None else '-'} -> {r1 if r1 is not None else '-'}"
                  for oid, r0, r1 in dc.ranks]
    for dc in d.unchanged:        # said, not left to be inferred from silence (a new user's price cut moved none)
        lines += ["", *wrapped(f"decision {dc.decision}: unchanged, {dc.label(dc.after)} ({dc.after_value}); no "
                               "option's rank moved", width)]
    return "\n".join(lines) + "\n"


def change(x: Any, y: Any) -> str:
    if isinstance(x, float) and isinstance(y, float) and not isinstance(x, bool) and x not in (0.0,) \
            and math.isfinite(x) and math.isfinite(y):
        return f"{100 * (y - x) / abs(x):+.1f} %"
    return ""


def as_json(d: Diff, first: str, second: str) -> str:
    return json.dumps({"before": first, "after": second, **d.as_dict()}, indent=2, default=str) + "\n"
