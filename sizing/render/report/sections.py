"""Per workload: its inputs as written with their sources, every result across devices, its sweeps."""

from __future__ import annotations

from ... import formulas as F
from ... import kinds as K
from ...evaluate import Pair, Results
from ...narrative import defs, device_name, label, pairs_of, plain, used_keys, workload_title
from ..format import aligned, human, separated
from .context import InputGroup, Table, WorkloadSection
from .figures import workload_charts


DEVICE_COLUMNS = 5                 # results tables split into chunks of this many devices


def workload_section(r: Results, wid: str) -> WorkloadSection:
    pairs = pairs_of(r, wid)
    kind = pairs[0].kind
    w = r.scenario.workloads.get(wid)
    if not K.get(kind).workload:
        title = f"Benchmark record {wid} ({pairs[0].device})"
    else:
        title = workload_title(r, wid)
    return WorkloadSection(wid, title, K.get(kind).words, str(w.get("description", "")) if w else "",
                           input_groups(r, pairs), result_tables(pairs), sweep_tables(r, wid),
                           workload_charts(r, wid, pairs))


def input_groups(r: Results, pairs: list[Pair]) -> tuple[InputGroup, ...]:
    """The inputs the pairs' formulas read, grouped by entity, as written and with their source."""
    used = used_keys(pairs)
    groups: dict[tuple[str, str], list] = {}
    order = {"workload": 0, "benchmark": 0, "model": 1, "device": 2}
    for key, i in r.inputs.items():
        if key in used:
            groups.setdefault((i.entity.kind, i.entity.id), []).append(i)
    out = []
    for (kind, eid), inputs in sorted(groups.items(), key=lambda kv: order.get(kv[0][0], 3)):
        sources = [i.value.source or "" for i in inputs]
        common = max(set(sources), key=lambda s: (sources.count(s), s)) if sources else ""
        common = common if sources.count(common) >= max(2, len(sources) / 2) else ""
        rows = tuple((i.path, separated(i.value.text), F.INPUTS[i.role].description,
                      "" if common and i.value.source == common else i.value.source or "") for i in inputs)
        out.append(InputGroup(entity_heading(r, kind, eid), common, rows))
    return tuple(out)


def entity_heading(r: Results, kind: str, eid: str) -> str:
    name = device_name(r, eid) if kind == "device" else ""
    if kind == "model" and eid in r.scenario.models:
        name = str(r.scenario.models[eid].get("name") or "")
    return f"{kind} {eid}" + (f" — {name}" if name else "")


def result_tables(pairs: list[Pair]) -> tuple[Table, ...]:
    """Quantities down, devices across (at most DEVICE_COLUMNS per table)."""
    present = defs(pairs)
    out = []
    for start in range(0, len(pairs), DEVICE_COLUMNS):
        chunk = pairs[start:start + DEVICE_COLUMNS]
        rows = []
        for qid, d in present.items():
            if any(qid in p.values for p in chunk):
                rows.append((label(qid, chunk[0].kind), *row_of(chunk, qid, d)))
        out.append(Table(("Quantity",) + tuple(p.device for p in chunk), tuple(rows), ("l",) + ("r",) * len(chunk)))
    return tuple(out)


def sweep_tables(r: Results, wid: str) -> tuple[Table, ...]:
    """A precision sweep as a table: each precision's key figures per device."""
    out = []
    for s in r.sweeps:
        if s.workload != wid or s.parameter != "precision":
            continue
        wanted = ("weights_bytes", "footprint_bytes", "memory_required", "fits", "step_time", "latency",
                  "tokens_per_s", "cost_per_million_tokens")
        for did, series in s.series.items():
            cols = {q: plain(series[q]) for q in wanted if q in series}
            cols = {q: v for q, v in cols.items() if any(x is not None for x in v)}
            rows = tuple((str(prec), *(human(v[j], F.definition(q).unit, F.definition(q).display)
                                       for q, v in cols.items())) for j, prec in enumerate(s.values))
            qids = list(cols)
            out.append(Table((f"Precision ({did})",) + tuple(label(q) for q in qids), rows,
                             ("l",) + ("r",) * len(qids)))
    return tuple(out)


def row_of(pairs: list[Pair], qid: str, d) -> list[str]:
    """One quantity across the pairs in one format (aligned); an en dash where a pair has none."""
    have = [p for p in pairs if qid in p.values]
    shown = dict(zip((p.device for p in have), aligned([p.values[qid] for p in have], d.unit, d.display)))
    return [shown.get(p.device, "–") for p in pairs]
