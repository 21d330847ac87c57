"""Per workload: its inputs as written with their sources, every result across devices, its sweeps."""

from __future__ import annotations

from ... import alternatives
from ... import formulas as F
from ... import kinds as K
from ...evaluate import Pair, Results
from ...narrative import defs, device_name, label, pairs_of, plain, used_keys, workload_title
from ..format import aligned, human, number, separated
from ..format import plain as one
from .. import charts
from .context import Chart, InputGroup, Table, WorkloadSection
from .figures import workload_charts


DEVICE_COLUMNS = 5                 # results tables split into chunks of this many devices
SWEEP_ROWS = 12                    # a long sweep's rows, evenly spaced (the JSON has them all)


def workload_section(r: Results, wid: str, shown: dict[str, str] | None = None) -> WorkloadSection:
    """`shown`: each input key an earlier section listed -> that section's title; this section lists only the
    others (and adds its own)."""
    pairs = pairs_of(r, wid)
    kind = pairs[0].kind
    w = r.scenario.workloads.get(wid)
    if not K.get(kind).workload:
        title = f"Benchmark record {wid} ({pairs[0].device})"
    else:
        title = workload_title(r, wid)
    shown = {} if shown is None else shown
    groups, above = input_groups(r, pairs, shown)
    shown.update({key: title for key in used_keys(pairs) if key in r.inputs and key not in shown})
    found = w is not None and bool(w.found)          # a batch sizing found: what it changes beside the stated batch
    return WorkloadSection(wid, title, K.get(kind).words, str(w.get("description", "")) if w else "",
                           groups, found_tables(r, w, pairs) if found else result_tables(pairs), sweep_tables(r, wid),
                           () if found else workload_charts(r, wid, pairs),
                           tuple(grid_view(g) for g in r.grids if g.workload == wid),
                           repeated_words(above, bool(groups)))


def found_tables(r: Results, w, pairs: list[Pair]) -> tuple[Table, ...]:
    """A batch sizing found, per device it was found for: each figure that differs from the stated batch's, the two
    side by side (the rest is the workload's section's)."""
    from ...diff import differs

    stated = r.inputs[f"workload.{w.alternative_of}.batch"].value.text
    out = []
    for p in pairs:
        base = r.pair(w.alternative_of, p.device)
        if base is None:
            continue
        present = defs([p, base])
        rows = tuple((label(qid, p.kind), *row_of([p, base], qid, d)) for qid, d in present.items()
                     if differs(p.values.get(qid), base.values.get(qid)))
        out.append(Table(("Quantity", f"{p.device} at batch {w.get('batch')}", f"at batch {stated}"), rows,
                         ("l", "r", "r"), caption=f"What batch {w.get('batch')} changes on {device_name(r, p.device)}; "
                                                  "every other figure is as at the stated batch, above"))
    return tuple(out)


def repeated_words(above: list[str], own: bool) -> str:
    """'The inputs listed above under “Chat answers (chat)” apply here too; only those it sets or reads alone
    follow.' '' when none is."""
    if not above:
        return ""
    names = [f"“{t}”" for t in above]
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    rest = "only those it sets or reads alone follow" if own else "it reads no other"
    return f"The inputs listed above under {joined} apply here too; {rest}."


def input_groups(r: Results, pairs: list[Pair], shown: dict[str, str]) -> tuple[tuple[InputGroup, ...], list[str]]:
    """The inputs the pairs' formulas read, grouped by entity, as written and with their source; an input an
    earlier section listed (a device's, a model's, or the workload's that an alternative keeps) is left out, and
    the titles of the sections it is under are returned beside the groups."""
    used = used_keys(pairs)
    groups: dict[tuple[str, str], list] = {}
    order = {"workload": 0, "benchmark": 0, "model": 1, "device": 2}
    above: list[str] = []
    for key, i in r.inputs.items():
        if key not in used:
            continue
        same = shown.get(key) or shown.get(alternatives.inherited(r.inputs, r.scenario.workloads, key) or "")
        if same:
            above += [same] if same not in above else []
            continue
        groups.setdefault((i.entity.kind, i.entity.id), []).append(i)
    out = []
    for (kind, eid), inputs in sorted(groups.items(), key=lambda kv: order.get(kv[0][0], 3)):
        sources = [i.value.source or "" for i in inputs]
        shared = [s for s in set(sources) if s and sources.count(s) >= 2]   # said once, above the group (a reviewer
        common = max(shared, key=lambda s: (len(s) * (sources.count(s) - 1), s), default="")   # read one catalog
        #                                    citation four times over): the one whose repeats take the most words
        flagged = flagged_fields(r, kind, eid)
        rows = tuple((i.path, separated(i.value.text), F.INPUTS[i.role].description,
                      "; ".join(x for x in ("" if common and i.value.source == common else i.value.source or "",
                                            *(f"unverified: {n}" for p, n in flagged
                                              if i.path == p or i.path.startswith(p + "."))) if x))
                     for i in inputs)
        out.append(InputGroup(entity_heading(r, kind, eid), common, rows))
    return tuple(out), above


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
            if any(qid in p.values for p in chunk) and not repeats(qid, chunk):
                rows.append((label(qid, chunk[0].kind), *row_of(chunk, qid, d)))
        out.append(Table(("Quantity",) + tuple(p.device for p in chunk), tuple(rows), ("l",) + ("r",) * len(chunk)))
    return tuple(out)


def flagged_fields(r: Results, kind: str, eid: str) -> list[tuple[str, str]]:
    """(field path, what is unverified) for each note of a device's `unverified` list scoped to a field, for the row
    of that field (a procurement reviewer read '2 unverified source notes ... its memory size' in the risks and found
    no note on the memory row)."""
    from ...narrative.risks import scoped_paths
    d = r.scenario.devices.get(eid) if kind == "device" else None
    notes = [str(v.value) for k, v in d.values.items() if k.startswith("unverified[")] if d is not None else []
    return [(p, n.partition(": ")[2]) for n in notes for p in scoped_paths(n)]


# A training run laid out at another count (the rows the workbook and JSON keep): where every device's count is the
# devices used, its layout is the one the rows above show.
AT_COUNT = {"_for_fit": "devices_that_fit", "_for_servers": "whole_domain_working"}


def repeats(qid: str, pairs: list[Pair]) -> bool:
    """Whether row `qid` repeats the devices used' layout on every pair: a layout at another count that is theirs."""
    count = next((c for suffix, c in AT_COUNT.items() if qid.endswith(suffix)), None)
    return count is not None and all(p.values.get(count) == p.values.get("devices") for p in pairs)


def sweep_tables(r: Results, wid: str) -> tuple[Table, ...]:
    """A sweep as tables: for a precision sweep, each precision's figures per device; for a numeric one, each
    quantity that moves with the swept field (its `shown`), the swept values down (at most SWEEP_ROWS, evenly
    spaced) and the devices across, in one format per table."""
    out = []
    for s in r.sweeps:
        if s.workload != wid:
            continue
        if s.parameter == "precision":
            for did, series in s.series.items():
                cols = {q: plain(series[q]) for q in s.shown if q in series}
                cols = {q: v for q, v in cols.items() if any(x is not None for x in v)}
                formatted = {q: aligned(v, F.definition(q).unit, F.definition(q).display) for q, v in cols.items()}
                rows = tuple((str(prec), *(c[j] for c in formatted.values())) for j, prec in enumerate(s.values))
                out.append(Table((f"Precision ({did})",) + tuple(label(q) for q in cols), rows,
                                 ("l",) + ("r",) * len(cols)))
            continue
        n = len(s.values)
        at = sorted({round(i * (n - 1) / (SWEEP_ROWS - 1)) for i in range(SWEEP_ROWS)}) if n > SWEEP_ROWS \
            else list(range(n))
        devices = [d for d in s.series if any(q in s.series[d] for q in s.shown)]
        swept = r.inputs.get(f"workload.{wid}.{s.parameter}")       # its values in its unit ('15 requests/s')
        x = (lambda v: human(v, F.INPUTS[swept.role].unit, F.INPUTS[swept.role].display)) \
            if swept is not None and F.INPUTS[swept.role].unit else number
        average = r.inputs.get(f"workload.{wid}.traffic.average")
        held = (f"; the average traffic held at {human(average.value.value, 'request/s')}, as the scenario states it "
                "(the fleet grows with the peak, the work it serves does not)") \
            if s.parameter == "traffic.peak" and average is not None else ""
        for q in s.shown:
            d = F.definition(q)
            have = [did for did in devices if q in s.series[did]]
            cells = aligned([one(s.series[did][q][j]) for j in at for did in have], d.unit, d.display)
            rows = tuple((x(s.values[j]), *cells[k * len(have):(k + 1) * len(have)]) for k, j in enumerate(at))
            out.append(Table((s.parameter, *have), rows, ("l",) + ("r",) * len(have),
                             caption=f"{label(q)} by {s.parameter}" + (f" ({len(at)} of {n} values)" if n > len(at)
                                                                        else "") + held))
    return tuple(out)


def row_of(pairs: list[Pair], qid: str, d) -> list[str]:
    """One quantity across the pairs in one format (aligned); an en dash where a pair has none."""
    have = [i for i, p in enumerate(pairs) if qid in p.values]        # by position: one device may come twice
    shown = dict(zip(have, aligned([pairs[i].values[qid] for i in have], d.unit, d.display)))
    return [shown.get(i, "–") for i in range(len(pairs))]


def grid_view(g) -> tuple[Chart | None, Table]:
    """A two-field sweep: a map of the option recommended in each cell, and the same as a table with the
    objective in one format; without a decision, the first moving quantity of each device instead."""
    d = F.definition(g.objective) if g.objective else None
    if d is not None:
        flat = aligned([v for row in g.value for v in row], d.unit, d.display)
        texts = [flat[i * len(g.column_values):(i + 1) * len(g.column_values)] for i in range(len(g.row_values))]
        rows = tuple((str(x), *(f"{b}\n{t}" if b else "none qualifies" for b, t in zip(best, text)))
                     for x, best, text in zip(g.row_values, g.best, texts))
        names = {o: i for i, o in enumerate(dict.fromkeys(b for row in g.best for b in row if b))}
        chart = Chart(f"The option recommended in each cell of the {g.rows} by {g.columns} grid (colour: the option; "
                      f"text: its {label(g.objective).lower()}); a white cell: no option qualifies there."
                      + (" Each cell is at its own batch: no batch found by sizing is ranked beside it."
                         if "batch" in (g.rows, g.columns) else ""),
                      charts.grid_map(f"Recommendation by {g.rows} and {g.columns}: {g.workload}",
                                      (g.rows, g.row_values), (g.columns, g.column_values), g.best, texts, names))
        head = (f"{g.rows} \\ {g.columns}", *(str(x) for x in g.column_values))
        return chart, Table(head, rows, ("l",) + ("l",) * len(g.column_values),
                            caption=f"Recommended option and its {label(g.objective).lower()}, by {g.rows} (down) and "
                                    f"{g.columns} (across)")
    q = g.shown[0] if g.shown else None
    device = next(iter(g.series), None)
    if q is None or device is None or q not in g.series[device]:
        return None, Table((g.rows,), tuple((str(x),) for x in g.row_values), ("l",))
    dq = F.definition(q)
    flat = aligned([v for row in g.series[device][q] for v in row], dq.unit, dq.display)
    rows = tuple((str(x), *flat[i * len(g.column_values):(i + 1) * len(g.column_values)])
                 for i, x in enumerate(g.row_values))
    return None, Table((f"{g.rows} \\ {g.columns}", *(str(x) for x in g.column_values)), rows,
                       ("l",) + ("r",) * len(g.column_values), caption=f"{label(q)} on {device}")
