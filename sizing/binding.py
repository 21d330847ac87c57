"""Binding a scenario to the formula graph: each pair's inputs (fields, family defaults, values that follow from a
choice) under stable keys, and the text choices the definitions branch on."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from . import formulas as F
from . import kinds as K
from .catalog import FAMILY_FIELDS, default_name, family_defaults
from .formulas.common import OWN_FIRST, RENT_FIRST
from .formulas.graph import Planned
from .schema import (DEVICE_FIELDS, OPTIMIZER_STATE_BYTES, PRECISION_BYTES, WEIGHT_ONLY, Entity, Fraction, Scenario,
                     Value,
                     compute_precision)
from .units import parse_fraction

# Structure a workload gets when it does not say: one pipeline stage, no expert split.
PARALLEL_DEFAULTS = {"pipeline": ("parallel.pipeline", 1), "expert_parallel": ("parallel.expert", 1)}
ACTIVATION_BYTES_MIN = 2.0      # activations travel between devices in 16 bits at least


def kind_fields(kind: str) -> tuple[str, ...]:
    """The family figures a workload kind reads: training its utilisation and the memory reserve, the others all
    but the training utilisation."""
    if kind == "train":
        return ("train_efficiency", "memory_reserve")
    return tuple(f for f in FAMILY_FIELDS if f != "train_efficiency")


@dataclass(frozen=True)
class Input:
    """An input cell: one entity field (or a value derived from a choice) used by the formulas."""

    key: str
    role: str
    entity: Entity
    path: str
    value: Value

    @property
    def unit(self) -> str:
        return F.INPUTS[self.role].unit


def input_values(inputs: dict[str, Input], blanks: dict[str, Input]) -> dict[str, Any]:
    return {k: i.value.value for k, i in (inputs | blanks).items()}


def derived(ent: Entity, v: Any, unit: str, text: str, source: str, like: str | None = None) -> Value:
    base = ent.values.get(like) if like else None
    line, col, file = (base.line, base.col, base.file) if base else (ent.line, ent.col, "")
    return Value(v, unit, text, file, line, col, source)


def blank_key(role: str, d: Entity) -> str:
    """The key of the cell a device leaves blank for a cost role (Binder.blank)."""
    return f"device.{d.id}.{F.INPUTS[role].path('device')}"


def deployments(d: Entity) -> list[str]:
    """Where a device can be had, as its `deployment` list gives it (empty where it gives none)."""
    return [v.value for p, v in sorted(d.values.items()) if p.startswith("deployment[")]


def sold_on_premises(d: Entity) -> bool:
    """Whether a device can be bought for use on premises: its deployment list names on-prem, or it has none."""
    listed = deployments(d)
    return not listed or "on-prem" in listed


class Binder:
    """Collects the inputs of every pair, each entity field once, under stable keys."""

    def __init__(self, scn: Scenario):
        self.scn = scn
        self.on_premises = on_premises(scn)
        self.inputs: dict[str, Input] = {}
        self.blanks: dict[str, Input] = {}      # a device's cost cells the scenario leaves out (F.OFFER)

    def add(self, role: str, ent: Entity, path: str, value: Value | None = None) -> F.Ref | None:
        value = value or ent.values.get(path)
        if value is None:
            return None
        key = f"{ent.kind}.{ent.id}.{path}"
        self.inputs.setdefault(key, Input(key, role, ent, path, value))
        return F.Ref(key, role)

    def pair_inputs(self, w: Entity, d: Entity | None, precision: str, offers: bool = True) -> dict[str, F.Ref]:
        refs: dict[str, F.Ref | None] = {}
        arith = arithmetic(precision, d)
        m = self.scn.models.get(w.get("model")) if w.has("model") else None
        for ent in (d, m, w):                  # a workload's own field wins over its model's
            if ent is None:
                continue
            for role, path in F.read_from(ent.kind):
                if role == "purchase" and ent is d and not sold_on_premises(d):
                    continue                    # owning it is no option: the purchase cell stays blank
                if role == "trainable" and ent is w and w.get("method") != "lora":
                    continue                    # the LoRA share: no input of a full training run
                refs[role] = self.add(role, ent, path.format(p=arith)) or refs.get(role)
        if d is not None:
            refs.update(self.family(d, refs, arith, w.get("kind")))
            refs.update({role: self.blank(role, d) for role in F.COST_CELLS
                         if refs.get(role) is None and (offers or role not in F.OFFER)})
        if (role := K.get(w.get("kind")).devices_role) is not None:
            per_device = f"devices.{d.id}" if d is not None else None
            refs[role] = self.add(role, w, per_device) if per_device in w.values else self.add(role, w, "devices")
        refs.update(self.choices(w, precision, arith))
        return {r: ref for r, ref in refs.items() if ref is not None}

    def values(self) -> dict[str, Any]:
        """key -> value of every input cell, blank ones as they read: what the formulas are evaluated over."""
        return input_values(self.inputs, self.blanks)

    def blank(self, role: str, d: Entity) -> F.Ref:
        """A cost cell the device leaves blank: a price or purchase has no value (NaN: not offered that way), any
        other reads as what the formulas take when the field is left out (F.BLANK_READS)."""
        path = F.INPUTS[role].path("device")
        key = blank_key(role, d)
        reads, text = F.BLANK_READS.get(role, (F.Const(math.nan), ""))
        v = derived(d, reads.value, F.INPUTS[role].unit, "",
                    f"not given: blank, read as {text}" if text else "not given: blank, not offered that way")
        self.blanks.setdefault(key, Input(key, role, d, path, v))
        return F.Ref(key, role)

    def family(self, d: Entity, refs: dict[str, F.Ref | None], arith: str, kind: str) -> dict[str, F.Ref | None]:
        """The device family's default for each efficiency and overhead the device does not state (compute
        efficiencies for the width of the arithmetic); training efficiency follows a stated compute efficiency."""
        out: dict[str, F.Ref | None] = {}
        narrow = PRECISION_BYTES[arith] <= 1
        for name in ("efficiency", "train_efficiency"):          # a stated figure for narrow arithmetic wins
            if narrow and d.has(f"{name}_8bit"):
                out[name] = self.add(name, d, f"{name}_8bit")
        if "train_efficiency" not in out and not d.has("train_efficiency") and d.has("efficiency"):
            out["train_efficiency"] = out.get("efficiency") or refs.get("efficiency")
        figures = family_defaults().get(d.get("kind"), {})
        for name in FAMILY_FIELDS:
            key = default_name(name, PRECISION_BYTES[arith])
            if d.has(name) or name in out or key not in figures or name not in kind_fields(kind):
                continue
            entry = figures[key]
            text = str(entry["value"])
            value, unit = figure(name, text)
            width = " (8-bit arithmetic)" if key != name else ""
            family = d.get("kind")
            article = "an" if family[0] in "aeiou" else "a"
            v = derived(d, value, unit, text, f"default for {article} {family}{width}: {evidence(entry)}")
            out[name] = self.add(name, d, key, v)
        return out

    def choices(self, w: Entity, precision: str, arith: str) -> dict[str, F.Ref | None]:
        """Inputs derived from a choice: bytes per value, training state bytes, default utilisation, the
        parallel structure a workload leaves out, the bytes of an activation sent between devices."""
        out = {"bytes_per_value": self.choice(w, "bytes_per_value", precision, "precision")}
        act = max(ACTIVATION_BYTES_MIN, PRECISION_BYTES[arith])
        v = derived(w, act, "byte", f"{act:g} byte", f"{arith} activations, 16-bit at least",
                    like="precision")
        out["activation_bytes"] = self.add("activation_bytes", w, "activation_bytes", v)
        for role, (path, default) in PARALLEL_DEFAULTS.items():
            if not w.has(path):
                out[role] = self.add(role, w, path, derived(w, default, "", str(default), "default"))
        if w.get("kind") == "train" and not w.has("parallel.tensor"):
            out["tensor_given"] = self.add("tensor_given", w, "parallel.tensor", derived(w, 1, "", "1", "default"))
        if w.has("kv_precision"):
            kvp = w.get("kv_precision")
            out["kv_bytes_per_value"] = self.choice(w, "kv_bytes_per_value", kvp, "kv_precision")
        if w.has("optimizer"):
            opt = w.get("optimizer")
            v = derived(w, OPTIMIZER_STATE_BYTES[opt], "byte", opt,
                        f"optimizer {opt}: {'pure 16-bit' if opt == 'adamw-bf16' else 'mixed-precision'} state "
                        "bytes per parameter", like="optimizer")
            out["state_bytes_per_parameter"] = self.add("state_bytes_per_parameter", w,
                                                        "state_bytes_per_parameter", v)
        if not w.has("traffic.utilisation") and not w.has("traffic.average") \
                and K.get(w.get("kind")).default_utilisation:
            why = "default: the average traffic is the peak" if w.has("traffic.peak") else "default: busy all the time"
            v = derived(w, 1.0, "", "100 %", why)
            out["utilisation"] = self.add("utilisation", w, "traffic.utilisation", v)
        return out

    def choice(self, w: Entity, role: str, precision: str, like: str) -> F.Ref | None:
        precision = compute_precision(precision) if role == "kv_bytes_per_value" else precision
        nbytes = PRECISION_BYTES[precision]
        said = f"{precision} = {nbytes:g} byte{'' if nbytes == 1 else 's'} per value"
        v = derived(w, nbytes, "byte", precision, said, like=like)
        return self.add(role, w, role, v)


def figure(name: str, text: str) -> tuple[float, str]:
    """A family default written as text ('80 %', '79 us'), read as the device field `name` reads it: (SI value,
    SI unit)."""
    f = next(x for x in DEVICE_FIELDS if x.name == name)
    return (parse_fraction(text), "") if isinstance(f.type, Fraction) else tuple(f.type.default(text)[:2])


def evidence(entry: dict) -> str:
    """A family default's basis and the records it was read from (the first two named; all in the catalog)."""
    why, recs = entry.get("basis", ""), entry.get("records", [])
    if not recs:
        return why
    named = ", ".join(recs[:2]) + (f" and {len(recs) - 2} more" if len(recs) > 2 else "")
    return f"{why}: {named} (sizing/catalog/defaults.yaml, measurements.yaml)"


def arithmetic(precision: str, d: Entity | None) -> str:
    """The precision a format's arithmetic runs at on `d`: its own, or for a weight-only format the first of
    fp16, bf16, fp32 the device has a rate for (a CPU dequantises to fp32)."""
    if precision not in WEIGHT_ONLY or d is None:
        return compute_precision(precision)
    for p in ("fp16", "bf16", "fp32"):
        if rated(d, p):
            return p
    return compute_precision(precision)


def rated(d: Entity, precision: str) -> bool:
    """Whether a device has a rate at `precision`: a peak, a delivered rate, or for fp32 a CPU's vector units."""
    return d.has(f"compute.{precision}") or d.has(f"delivered.{precision}") or (precision == "fp32"
                                                                                  and d.has("cpu.cores"))


def replica_of(w: Entity, d: Entity | None) -> str:
    """single or multi: whether one replica (or a training job) of `w` spans several devices of `d`."""
    count = w.get(f"devices.{d.id}") if d is not None and w.has(f"devices.{d.id}") else w.get("devices")
    if w.get("kind") == "train" and count is None:
        return "auto"                 # the devices follow from the state or a deadline: one or several
    return "multi" if (count or 1) > 1 else "single"


def on_premises(scn: Scenario) -> frozenset[str]:
    """The workloads (with their alternatives) a decision requires to run on premises (`require: [on-prem]`):
    their devices are costed as bought wherever a purchase is priced and the device forces no other basis, so a
    cheaper rental price does not turn the fleet the requirement needs into one it fails."""
    from . import alternatives
    from .decide import requirements_of

    out: set[str] = set()
    for dec in scn.decisions:
        if "on-prem" not in requirements_of(dec):
            continue
        wid = dec.get("workload") or next((w.id for w in scn.workloads.values() if not w.alternative_of
                                           and K.get(w.get("kind")).workload), None)
        if wid is not None:
            out |= {wid, *(w.id for w in alternatives.of(scn.workloads, wid))}
    return frozenset(out)


def basis_unwritten(d: Entity) -> bool:
    """Whether a device's `costs.basis` is left to sizing (its default), not written in the scenario."""
    return getattr(d.values.get("costs.basis"), "source", "default") == "default"


def texts_for(w: Entity, d: Entity | None, precision: str, on_premises: frozenset[str] = frozenset(),
              m: Entity | None = None) -> dict[str, str]:
    tied = w.get("tied_embeddings", m.get("tied_embeddings") if m is not None else None)
    t = {"precision": arithmetic(precision, d), "operands": w.get("operands"), "method": w.get("method"),
         "replica": replica_of(w, d), "recompute": "yes" if w.get("recompute") else None,
         "tied": "yes" if tied and w.get("kind") == "generate" else None}
    if d is not None:
        t["device_kind"] = d.get("kind")
        t["topology"] = d.get("interconnect.topology")
        t["basis"] = d.get("costs.basis")
        if t["basis"] in (None, "cheapest") and w.id in on_premises and d.has("costs.purchase"):
            t["basis"] = OWN_FIRST             # owned (what on premises needs) while a purchase is given
        elif basis_unwritten(d) and w.get("kind") == "train":
            t["basis"] = RENT_FIRST            # a one-off run rents; `costs.basis: own` where the devices are owned
        if where := deployments(d):
            t["deployment"] = ",".join(where)
    return {k: v for k, v in t.items() if v is not None}


def pair_plan(binder: Binder, w: Entity, d: Entity, precision: str | None = None,
              offers: bool = True) -> list[Planned]:
    """Every quantity of the pair bound to its inputs; without `offers`, as if a blank price or purchase cell were
    not there (so the costs that need it are absent)."""
    precision = precision or w.get("precision")
    inputs = binder.pair_inputs(w, d, precision, offers)
    m = binder.scn.models.get(w.get("model")) if w.has("model") else None
    return F.plan(w.get("kind"), inputs, texts_for(w, d, precision, binder.on_premises, m), f"{w.id}/{d.id}/")


def not_offered(binder: Binder, w: Entity, d: Entity, plan: list[Planned]) -> frozenset:
    """The quantities of a pair (its `plan`) that need a price or purchase the device leaves blank (own_rate of a
    device not sold, every cost of one not priced): the workbook keeps their formulas, live for a figure typed in,
    but the results leave them out, as quantities that do not apply."""
    if not any(blank_key(role, d) in binder.blanks for role in F.OFFER):
        return frozenset()                # both priced and sold (no blank offer cell): nothing differs

    def ids(planned: list[Planned]) -> set[str]:
        return {x.d.id for x in planned if not isinstance(x.expr, F.Missing)}
    return frozenset(ids(plan) - ids(pair_plan(binder, w, d, offers=False)))
