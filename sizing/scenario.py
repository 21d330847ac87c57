"""Load a scenario file: hardened YAML, field checks, catalog entries, defaults, cross-references."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from . import alternatives
from . import kinds as K
from . import schema as S
from .errors import Problem
from .hfconfig import read_config
from .loader import Mapping, Node, Scalar, Sequence, load_file, load_text, read_file
from .checks import (check_benchmarks, check_currency, check_decision, check_pairs, check_parallel,
                     check_sweep_size, check_traffic, compare_list, explain_foreign_keys, suggest)
from .cross_checks import (check_api_input_price, check_context, check_demand_alternatives, check_heads,
                           check_narrow_efficiency, check_unsold_purchase, check_unused_discount, check_unused_share)
from .schema import Checker, Entity, Field, Scenario, Value
from .entries import catalog, default_value, fill_defaults, named_file, resolve_from
from .uncertainty.language import uncertainty_of

__all__ = ["Sweep", "catalog", "load_scenario", "load_scenario_bytes", "sha256"]


@dataclass(frozen=True)
class Sweep:
    """One workload field swept over a list of values; with `by`, a second field: the grid of both."""

    parameter: str
    values: tuple
    workload: str | None
    line: int
    col: int
    by: Sweep | None = None


# YAML problems after which the document read is still the one meant, so its checks run too ("every problem of a file
# at once": a new user saw one duplicate key, then nine more problems once it was gone); the first of two keys is kept.
KEPT_GOING = frozenset({"yaml-duplicate-key", "yaml-ambiguous-key"})


# -- scenario ------------------------------------------------------------------------------
def load_scenario(path: str | Path, name: str | None = None) -> tuple[Scenario | None, list[Problem]]:
    """Load and check a scenario file; return (scenario or None, every problem found)."""
    path = Path(path)
    data, problems = read_file(path, name or str(path))
    if data is None:
        return None, problems
    return load_scenario_bytes(data, name or str(path), base=path.parent)


def load_scenario_bytes(data: bytes, name: str, base: Path = Path(".")) -> tuple[Scenario | None, list[Problem]]:
    node, problems = load_text(data, name)
    if node is None or any(p.code not in KEPT_GOING for p in problems):
        return None, problems
    scn, more = build(node, name, data, base)
    problems = sorted(set(problems + more), key=lambda p: (p.file != name, p.file, p.line, p.col, p.message))
    if any(p.level == "error" for p in problems):
        return None, problems
    return scn, problems


def build(root: Node, file: str, data: bytes, base: Path) -> tuple[Scenario | None, list[Problem]]:
    chk = Checker(file)
    if not isinstance(root, Mapping):
        chk.problem(root, "", "a scenario is a mapping that starts with 'sizing: 1'", "wrong-shape")
        return None, chk.problems
    meta: dict[str, Value] = {}
    for key, child in root.entries:
        f = S.TOP.get(key.text)
        if f is None:
            chk.unknown(key, key.text, list(S.TOP))
        elif isinstance(f.type, S.Leaf):
            v = chk.leaf(child, f, key.text)
            if v is not None:
                meta[key.text] = v
    chk.require(root, S.TOP_FIELDS, "")
    if "status" in meta and meta["status"].value == "final" and not ("owner" in meta
                                                                     and str(meta["owner"].value).strip()):
        chk.problem(meta["status"], "status", "a final decision needs an owner to sign it: add 'owner: <who owns the "
                    "decision>' or set status: review", "final-needs-owner")
    chk.currency = meta["currency"].value if "currency" in meta else "USD"
    devices = entities(chk, root.get("devices"), "devices", "device", S.DEVICE_FIELDS)
    for key in ("devices", "workloads"):
        node = root.get(key)
        if isinstance(node, Mapping) and not node.entries:
            chk.problem(node, key, f"no {key} given; a scenario needs at least one", "empty-mapping")
    models = entities(chk, root.get("models"), "models", "model", S.MODEL_FIELDS)
    workloads = {}
    if (wnode := root.get("workloads")) is not None:
        workloads = {k.text: workload(chk, k, v) for k, v in mapping_entries(chk, wnode, "workloads")}
    for ent in (*devices.values(), *models.values()):
        own_source(ent)
    for m in models.values():
        import_config(chk, m, base)
    used = resolve_from(chk, devices, models, base)
    check_references(chk, devices, models, workloads)
    compare = compare_list(chk, root.get("compare"), devices)
    sweep = sweep_of(chk, root.get("sweep"), workloads)
    check_sweep_size(chk, sweep, compare)
    decisions = decisions_of(chk, root.get("decision"), workloads, file)
    benches = benchmarks(chk, root.get("benchmarks"), base)
    ranges = uncertainty_of(chk, root.get("uncertainty"), {"devices": devices, "models": models,
                                                           "workloads": workloads},
                            {w.id: w.get("kind") for w in workloads.values()})
    check_benchmarks(chk, benches, devices, workloads)
    if "currency" in meta or root.get("currency") is None:       # an unknown code is its own error
        check_currency(chk, meta, [*devices.values(), *workloads.values(), *decisions, *benches])
    if any(p.level == "error" for p in chk.problems):
        return None, chk.problems
    workloads = alternatives.expand(chk, workloads, lambda w: fill_defaults(w, S.WORKLOAD_FIELDS[w.get("kind")], file))
    check_pairs(chk, workloads, compare)
    if any(p.level == "error" for p in chk.problems):
        return None, chk.problems
    for m in models.values():
        model_defaults(m, file)
    check_context(chk, models, workloads)
    check_heads(chk, models, workloads)
    check_api_input_price(chk, workloads)
    check_unused_share(chk, workloads)
    check_demand_alternatives(chk, workloads)
    check_narrow_efficiency(chk, devices, workloads, compare)
    check_unsold_purchase(chk, devices)
    check_unused_discount(chk, devices)
    scn = Scenario(file, data, meta, devices, models, workloads, compare, sweep, decisions, benches, used, ranges)
    return scn, chk.problems


def import_config(chk: Checker, m: Entity, base: Path) -> None:
    """Fill a model's fields from its `config:` file; fields written in the scenario win."""
    ref = m.values.pop("config", None)
    if ref is None:
        return
    path = named_file(chk, ref, ref.value, base, f"models.{m.id}.config")
    if path is None:
        return
    if not path.exists():                      # a folder or a pipe is refused by the reader, with its own words
        chk.problem(ref, f"models.{m.id}.config", f"cannot read '{ref.value}': no such file next to the scenario",
                    "file-unreadable")
        return
    fields, problems = read_config(path, str(path))
    unread = [p for p in problems if p.code in ("not-a-file", "file-unreadable", "file-too-large")]
    if unread:                                # said where the scenario names it: the file has no line to point at
        chk.problem(ref, f"models.{m.id}.config", f"cannot use '{ref.value}': {unread[0].message}", unread[0].code)
        return
    chk.problems.extend(problems)
    sub = Checker(str(path), source=f"config {ref.value}")
    spec = {f.name: f for f in S.MODEL_FIELDS}
    imported: dict[str, Value] = {}
    for key, (text, line, col) in fields.items():
        v = sub.leaf(Scalar(text, False, line, col), spec[key], f"model.config.{key}")
        if v is not None:
            imported[key] = v
    chk.problems.extend(sub.problems)
    m.values = {**imported, **m.values}


def own_source(ent: Entity) -> None:
    """A scenario entry's `source:` text labels each of its own figures; `field_sources:` one figure."""
    src = ent.values.get("source")
    for path, v in ent.values.items():
        own = ent.values.get(f"field_sources.{path}", src)
        if own is not None:
            ent.values[path] = replace(v, source=f"{own.value} ({v.source})")


def mapping_entries(chk: Checker, node: Node, path: str) -> list[tuple[Scalar, Node]]:
    if not isinstance(node, Mapping):
        chk.problem(node, path, "expected a mapping of ids to entries", "wrong-shape")
        return []
    good = []
    for k, v in node.entries:
        if not S.SLUG.fullmatch(k.text):
            chk.problem(k, f"{path}.{k.text}", "an id uses lower-case letters, digits, '.', '_' and '-' only", "bad-id")
        else:
            good.append((k, v))
    return good


def entities(chk: Checker, node: Node | None, path: str, kind: str, fields: tuple[Field, ...]) -> dict[str, Entity]:
    out = {}
    if node is None:
        return out
    for k, v in mapping_entries(chk, node, path):
        ent = Entity(kind, k.text, line=k.line, col=k.col)
        chk.block(v, fields, f"{path}.{k.text}", ent.values)
        out[k.text] = ent
    return out


def workload(chk: Checker, key: Scalar, node: Node) -> Entity:
    ent = Entity("workload", key.text, line=key.line, col=key.col)
    path = f"workloads.{key.text}"
    kind_node = node.get("kind") if isinstance(node, Mapping) else None
    kind = kind_node.text if isinstance(kind_node, Scalar) else None
    fields = S.WORKLOAD_FIELDS.get(kind)
    if fields is None:
        if isinstance(node, Mapping) and kind_node is None:
            chk.problem(node, path, f"missing required field 'kind' (one of: {', '.join(K.WORKLOAD_KINDS)})",
                        "missing-field")
        fields = S.COMMON_WORKLOAD
        extra = tuple(f for f in S.ALL_WORKLOAD_FIELDS.values() if f not in fields)
        chk.block(node, fields, path, ent.values, extra=extra)
        return ent
    before = len(chk.problems)
    chk.block(node, fields, path, ent.values)
    explain_foreign_keys(chk, before, kind)
    check_parallel(chk, ent, kind, path)
    fill_defaults(ent, fields, chk.file)
    if "precision" not in ent.values:
        ent.values["precision"] = default_value(K.get(kind).default_precision, None, chk.file, ent)
    if kind == "generate" and "kv_precision" not in ent.values:
        ent.values["kv_precision"] = replace(ent.values["precision"], source="default: same as precision")
        ent.follows["kv_precision"] = "precision"
    check_traffic(chk, ent, path)
    alternatives.check_ids(chk, ent, node.get("alternatives") if isinstance(node, Mapping) else None, path, before)
    if isinstance(node, Mapping) and (lacking := S.WORKLOAD.needs_message(kind, node.keys())):
        chk.problem(node, path, lacking, "missing-field")
    return ent


def model_defaults(m: Entity, file: str) -> None:
    if m.has("kv_lora_rank"):
        return                           # latent attention: the KV cache comes from the latent rank
    if "kv_heads" not in m.values and "heads" in m.values:
        m.values["kv_heads"] = replace(m.values["heads"], source="default: heads (no grouped-query attention)")
    if "head_dim" not in m.values and "hidden" in m.values and "heads" in m.values:
        hd = m.get("hidden") // m.get("heads")
        m.values["head_dim"] = Value(hd, "", str(hd), file, m.line, m.col, "default: hidden / heads")


def check_references(chk: Checker, devices: dict, models: dict, workloads: dict) -> None:
    _, cat_models, _ = catalog()
    for w in workloads.values():
        for path, v in w.values.items():
            inner = alternatives.strip(path)             # an alternative names devices and models too
            if inner.startswith("devices.") and inner[8:] not in devices:
                chk.problem(v, f"workloads.{w.id}.{path}",
                            f"unknown device '{inner[8:]}'{suggest(inner[8:], devices)}", "unknown-reference")
            if inner != "model" or v.value in models:
                continue
            if v.value in cat_models:      # a catalog model named directly
                models[v.value] = Entity("model", v.value, dict(cat_models[v.value].values), v.line, v.col)
                continue
            chk.problem(v, f"workloads.{w.id}.{path}",
                        f"unknown model '{v.value}'{suggest(v.value, list(models) + list(cat_models))}",
                        "unknown-reference")


def sweep_of(chk: Checker, node: Node | None, workloads: dict) -> Sweep | None:
    if node is None:
        return None
    if not isinstance(node, Mapping):
        chk.problem(node, "sweep", "expected a mapping like {batch: [1, 8, 64]}", "wrong-shape")
        return None
    target = None
    params = []
    for k, v in node.entries:
        if k.text == "workload":
            target = v.text if isinstance(v, Scalar) else None
            if target not in workloads:
                chk.problem(v, "sweep.workload", f"unknown workload '{target}'{suggest(str(target), workloads)}",
                            "unknown-reference")
        elif k.text in S.SWEEP_KEYS:
            params.append((k, v))
        else:
            chk.unknown(k, f"sweep.{k.text}", list(S.SWEEP_KEYS) + ["workload"])
            return None
    if len(params) not in (1, 2):
        chk.problem(node, "sweep", "sweep one field, e.g. {batch: [1, 8, 64]}, or two for a grid, e.g. "
                    "{batch: [1, 8, 64], precision: [bf16, fp8]}", "sweep-one-field")
        return None
    found = [(k, sweep_values(chk, k.text, v)) for k, v in params]
    if not all(values for _, values in found):
        return None
    if len(found) == 2 and len(found[0][1]) * len(found[1][1]) > S.MAX_GRID_CELLS:
        k = found[1][0]
        chk.problem(k, f"sweep.{k.text}", f"a grid of {len(found[0][1])} x {len(found[1][1])} = "
                    f"{len(found[0][1]) * len(found[1][1]):,} cells is more than {S.MAX_GRID_CELLS}: each cell is a "
                    f"decision; sweep fewer values of one field", "sweep-grid-too-large")
        return None
    (key, values), *more = found
    by = Sweep(more[0][0].text, more[0][1], target, more[0][0].line, more[0][0].col) if more else None
    return Sweep(key.text, values, target, key.line, key.col, by)


def sweep_values(chk: Checker, param: str, node: Node) -> tuple:
    """The swept values: a list checked like the field itself, or a range {from, to, points, scale}."""
    path = f"sweep.{param}"
    f = S.SWEEP_FIELDS[param]
    if isinstance(node, Mapping) and f.type.numeric:
        return sweep_range(chk, node, path, f)
    if not isinstance(node, Sequence) or not node.items:
        chk.problem(node, path, "expected a non-empty list of values, or {from: 1, to: 256, points: 9, scale: log}",
                    "wrong-shape")
        return ()
    out = [chk.leaf(item, f, f"{path}[{i}]") for i, item in enumerate(node.items)]
    return tuple(v.value for v in out) if all(v is not None for v in out) else ()


def sweep_range(chk: Checker, node: Mapping, path: str, f: Field) -> tuple:
    import numpy as np

    n = len(chk.problems)
    r: dict[str, Value] = {}
    chk.block(node, S.SWEEP.range_of(f), path, r)
    if len(chk.problems) > n:
        return ()
    points = int(r["points"].value)
    if points > S.MAX_SWEEP_POINTS:
        chk.problem(node, path, f"at most {S.MAX_SWEEP_POINTS:,} points", "out-of-range")
        return ()
    lo, hi = r["from"].value, r["to"].value
    if "scale" in r and r["scale"].value == "log":
        if lo <= 0:
            chk.problem(node, path, "a log scale starts above zero", "out-of-range")
            return ()
        vals = np.geomspace(lo, hi, points)
    else:
        vals = np.linspace(lo, hi, points)
    if f.type.whole:                              # batches and sizes are whole: round, keep each once
        vals = np.unique(np.round(vals))
    return tuple(float(x) for x in vals)


def decisions_of(chk: Checker, node: Node | None, workloads: dict, file: str) -> list[Entity]:
    """`decision:` as one block (id `decision`) or a list of blocks (ids `decision-1`, ...), each checked."""
    if node is None:
        return []
    items = [(f"decision[{i}]", f"decision-{i + 1}", n) for i, n in enumerate(node.items)] \
        if isinstance(node, Sequence) else [("decision", "decision", node)]
    out = []
    for path, did, item in items:
        ent = Entity("decision", did, line=item.line, col=item.col)
        chk.block(item, S.DECISION_FIELDS, path, ent.values)
        fill_defaults(ent, S.DECISION_FIELDS, file)
        check_decision(chk, ent, workloads, path)
        out.append(ent)
    if len(out) > 1:
        for path, _, item in items:
            if isinstance(item, Mapping) and item.get("workload") is None:
                chk.problem(item, path, "each decision of a list names its `workload:`", "missing-field")
    return out


def benchmarks(chk: Checker, node: Node | None, base: Path) -> list[Entity]:
    out = []
    if node is None:
        return out
    if not isinstance(node, Sequence):
        chk.problem(node, "benchmarks", "expected a list of records or {file: record.json} entries", "wrong-shape")
        return out
    for i, item in enumerate(node.items):
        path = f"benchmarks[{i}]"
        ent = Entity("benchmark", f"bench-{i + 1}", line=item.line, col=item.col)
        before = len(chk.problems)
        if isinstance(item, Mapping) and isinstance(f := item.get("file"), Scalar):
            record_file(chk, base, f, path, ent)
        chk.block(item, S.BENCHMARK_FIELDS, path, ent.values)
        ent.values.pop("file", None)
        if "id" in ent.values:
            ent.id = ent.get("id")
        for req in ("throughput_output_tokens_per_s", "hourly_cost_usd"):
            if req not in ent.values and isinstance(item, Mapping) and len(chk.problems) == before:
                chk.problem(item, path, f"missing '{req}' (in the record or its file)", "missing-field")
        out.append(ent)
    return out


def record_file(chk: Checker, base: Path, f: Scalar, path: str, ent: Entity) -> None:
    """Read a JSON benchmark record (the reference's format) into the entity."""
    target = named_file(chk, f, f.text, base, f"{path}.file")
    if target is None:
        return
    node, probs = load_file(target, name=str(target))
    if probs:
        first = probs[0]
        chk.problem(f, f"{path}.file",
                    f"cannot use '{f.text}': {first.message} ({first.file}:{first.line}:{first.col})", first.code)
        return
    sub = Checker(str(target), source=f"record {f.text}")
    fields = tuple(fd for fd in S.BENCHMARK_FIELDS if fd.name not in ("file", "utilisation", "id"))
    sub.block(node, fields, "", ent.values)
    chk.problems += sub.problems


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
