"""The PDF decision report: one typed context from the engine's results, Jinja2 templates, WeasyPrint PDF/A-3b."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__, currency
from .. import formulas as F
from .. import kinds as K
from ..decide import budget_quantity, pair_of
from ..evaluate import Pair, Results, decide_each, sweep_paths, what_if
from ..formulas.graph import QuantityDef
from ..output import build_datetime
from ..scenario import sha256
from ..narrative import (HOURS_PER_MONTH, breakeven, defs, device_name, findings, fleet_words, held_against, label, objective_words,
                        pairs_of, plain, show, used_keys, value_words, verdict, why, workload_ids, workload_title)
from . import charts
from .format import human, number

TEMPLATE = "report.html.j2"
STYLESHEET = "report.css"
DEVICE_COLUMNS = 5                 # results tables split into chunks of this many devices
FIGURE_COLUMNS = 5                 # key figures beside the objective in the comparison table
# A service option's figure in place of a fleet's (None: not applicable); the API shows only what it maps.
VARIANT_FIGURES = {
    "busy_hours": {"cost_per_million_tokens": "busy_hours_cost_per_million_tokens",
                   "cost_per_million_requests": "busy_hours_cost_per_million_requests",
                   "monthly_cost": "busy_hours_monthly_cost", "fleet_devices": "busy_hours_devices", "devices_needed": None,
                   "monthly_cost_own": None},
    "api": {"cost_per_million_tokens": "api_cost_per_million_tokens", "monthly_cost": "api_monthly_cost"},
}
SENSITIVITY = (0.75, 1.25)         # each assumption moved -25 % and +25 %
TORNADO_ROWS = 12
FLIPS_SHOWN = 6                    # changes that alter the recommendation, listed on the first page
UTILISATION_GRID = np.linspace(0.05, 1.0, 96)


# -- the context the template receives -------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """Preformatted cells; `align` is 'l' or 'r' per column; `mark` a row to emphasise."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...]
    mark: int | None = None
    caption: str = ""


@dataclass(frozen=True)
class Chart:
    caption: str
    uri: str            # an SVG data URI drawn by charts.py


@dataclass(frozen=True)
class Decision:
    title: str                        # what the decision settles (its title, else its workload's)
    device: str | None                # the recommended option, as the table names it
    device_name: str
    headline: str
    objective: str
    workload: str
    constraint: str
    reasons: tuple[str, ...]
    table: Table
    table_note: str
    fleet: str
    fleet_label: str                  # "Fleet" (the recommendation's) or the cheapest own fleet's, beside a service
    sensitivity: Sensitivity | None   # the recommendation with each assumption moved
    budget: str = ""                  # each budget, what the recommendation uses of it and what is left


@dataclass(frozen=True)
class InputGroup:
    entity: str
    source: str                                     # the source most of the entity's figures share
    rows: tuple[tuple[str, str, str, str], ...]     # field, value as written, meaning, source (blank: as above)


@dataclass(frozen=True)
class WorkloadSection:
    id: str
    title: str
    kind: str
    description: str
    inputs: tuple[InputGroup, ...]
    results: tuple[Table, ...]
    sweep_tables: tuple[Table, ...]
    charts: tuple[Chart, ...]


@dataclass(frozen=True)
class Sensitivity:
    intro: str
    flips: tuple[str, ...]            # the first FLIPS_SHOWN changes that alter the recommendation
    more_flips: str                   # how many more there are, in words ("" when none)
    chart: Chart | None
    table: Table


@dataclass(frozen=True)
class MethodEntry:
    quantity: str
    unit: str
    description: str
    formulas: tuple[str, ...]


@dataclass(frozen=True)
class MethodGroup:
    kind: str
    entries: tuple[MethodEntry, ...]


@dataclass(frozen=True)
class Provenance:
    tool: str
    file: str
    sha256: str
    built: str
    attachments: tuple[str, ...]
    renderers: str


@dataclass(frozen=True)
class Report:
    title: str
    owner: str
    date: str
    status: str
    description: str
    created: str                      # W3C date for the PDF metadata
    decisions: tuple[Decision, ...]
    together: str                     # several decisions: their recommendations' monthly cost and capital summed
    overview: tuple[Table, ...]       # key figures per workload, when there is no decision
    findings: tuple[str, ...]
    caveats: tuple[str, ...]
    workloads: tuple[WorkloadSection, ...]
    breakeven: tuple[str, ...]
    method: tuple[MethodGroup, ...]
    glossary: tuple[tuple[str, str, str], ...]
    warnings: tuple[str, ...]
    provenance: Provenance

    @property
    def decision(self) -> Decision | None:
        return self.decisions[0] if self.decisions else None


# -- public API ------------------------------------------------------------------------------------------
@currency.rendered
def report_bytes(results: Results, workbook: bytes | None = None) -> bytes:
    """The PDF/A-3b report, with the scenario YAML (and the workbook, if given) attached; same input, same bytes."""
    import weasyprint

    scn = results.scenario
    when = build_datetime(scn)
    names = attachment_names(results, workbook is not None)
    html = report_html(results, names)
    fetcher = weasyprint.urls.URLFetcher(allowed_protocols={"data"}, fail_on_errors=True)
    files = [weasyprint.Attachment(string=scn.data, name=names[0], relationship="Source", created=when,
                                   modified=when, url_fetcher=fetcher)]
    if workbook is not None:
        files.append(weasyprint.Attachment(string=workbook, name=names[1], relationship="Data", created=when,
                                           modified=when, url_fetcher=fetcher))
    css = weasyprint.CSS(string=read_template(STYLESHEET), url_fetcher=fetcher)
    doc = weasyprint.HTML(string=html, base_url=None, url_fetcher=fetcher)
    return doc.write_pdf(stylesheets=[css], attachments=files, pdf_variant="pdf/a-3b",
                         pdf_identifier=sha256(scn.data)[:32].encode("ascii"))


@currency.rendered
def report_html(results: Results, attachments: tuple[str, ...] | None = None) -> str:
    """The report as HTML (what WeasyPrint lays out)."""
    ctx = build_context(results, attachments or attachment_names(results, False))
    return environment().get_template(TEMPLATE).render(r=ctx)


# -- templates -------------------------------------------------------------------------------------------
def template_dir() -> Path:
    here = Path(__file__).resolve()
    beside = here.parents[2] / "templates"
    packaged = here.parents[1] / "templates"
    return beside if (beside / TEMPLATE).exists() or not packaged.exists() else packaged


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(loader=FileSystemLoader(template_dir()), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True)


def read_template(name: str) -> str:
    return (template_dir() / name).read_text(encoding="utf-8")


def attachment_names(results: Results, with_workbook: bool) -> tuple[str, ...]:
    scn = results.scenario
    base = Path(scn.file).name
    yaml_name = base if base.endswith((".yaml", ".yml")) else f"{scn.name}.yaml"
    return (yaml_name, f"{scn.name}.xlsx") if with_workbook else (yaml_name,)


# -- building the context --------------------------------------------------------------------------------
def build_context(results: Results, attachments: tuple[str, ...]) -> Report:
    """Everything the template shows, formatted; every number comes from the engine's results."""
    scn = results.scenario
    meta = {k: v.value for k, v in scn.meta.items()}
    when = build_datetime(scn)
    return Report(
        title=scn.title, owner=str(meta.get("owner", "not stated")), date=str(meta.get("date", when.date())),
        status=str(meta.get("status", "not stated")), description=str(meta.get("description", "")).strip(),
        created=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        decisions=tuple(decision_summary(results, i) for i in range(len(results.decisions))), overview=overview(results),
        together=together(results),
        findings=findings(results),
        caveats=caveats(results),
        workloads=tuple(workload_section(results, wid) for wid in workload_ids(results)),
        breakeven=breakeven(results), method=method(results),
        glossary=glossary(results), warnings=tuple(f"{p.path}: {p.message}" for p in results.problems),
        provenance=Provenance(f"sizing {__version__}", Path(scn.file).name, sha256(scn.data),
                              when.strftime("%Y-%m-%d %H:%M UTC"), attachments, renderers()),
    )


def renderers() -> str:
    return ", ".join(f"{n} {metadata.version(n)}" for n in ("WeasyPrint", "matplotlib", "Jinja2"))


# -- small helpers over the results ----------------------------------------------------------------------


def colours(r: Results) -> dict[str, int]:
    return {did: i for i, did in enumerate(r.scenario.compare)}


# -- recommendation --------------------------------------------------------------------------------------
def decision_summary(r: Results, which: int) -> Decision:
    dec = r.decisions[which]
    best = dec.best
    wid = dec.workload
    p = pair_of(r, dec, best) if best else None
    headline = value_words(r, dec, best) if p else "no option qualifies"
    constraint, reasons = why(r, dec)
    table, note = comparison(r, dec)
    title = dec.title or workload_title(r, wid)
    name = device_name(r, best.device) if best and best.variant != "api" else ""
    own = best if best and best.variant == "fleet" else next((o for o in dec.options if o.variant == "fleet"
                                                              and o.passes), None)
    fleet = fleet_words(r, pair_of(r, dec, own), own.label) if own else ""
    if own is not best and fleet:
        fleet = f"{fleet[:-1]}; {show(pair_of(r, dec, own), own.quantity)}."
    return Decision(title, best.label if best else None, name, headline, objective_words(dec),
                    workload_title(r, best.workload if best and best.workload else wid), constraint, tuple(reasons), table, note, fleet,
                    "Fleet" if own is best else "Cheapest fleet held all month", sensitivity(r, which),
                    budget_words(r, dec))


def spent(r: Results, dec, o, name: str) -> float | None:
    """What an option uses of a budget, as the decision checks it (renting and the API use no capital)."""
    qid = budget_quantity(name, o.variant)
    if qid is None:
        return 0.0
    v = pair_of(r, dec, o).values.get(qid)
    return v if isinstance(v, float) else None


def budget_words(r: Results, dec) -> str:
    """'Budget: monthly $6,000, of which $1,972 used ($4,028 left)', for the recommended option."""
    if not dec.best or not dec.budget:
        return ""
    unit = {"monthly": "USD/month"}
    named = {"monthly": "", "capex": "capital ", "total": "for the run "}
    parts = []
    for name, limit in dec.budget.items():
        used = spent(r, dec, dec.best, name)
        u = unit.get(name, "USD")
        parts.append(f"{named[name]}{human(limit, u)}" + (f", of which {human(used, u)} used ({human(limit - used, u)} "
                                                           f"left)" if used is not None else ""))
    return "Budget: " + "; ".join(parts) + "."


def together(r: Results) -> str:
    """Every decision's recommendation together, where there are several: monthly cost and capital."""
    best = [(d, d.best) for d in r.decisions if d.best]
    if len(r.decisions) < 2 or len(best) < len(r.decisions):
        return ""
    monthly = [spent(r, d, o, "monthly") for d, o in best]
    capital = [spent(r, d, o, "capex") for d, o in best]
    if any(v is None for v in monthly):
        return ""
    cap = f", which includes writing off {human(sum(capital), 'USD')} of capital bought up front" \
        if all(v is not None for v in capital) and sum(capital) else ""
    return f"The {len(best)} recommendations together: {human(sum(monthly), 'USD/month')}{cap}."


def comparison(r: Results, dec: Decision) -> tuple[Table, str]:
    """Options in the engine's ranking order: objective, key figures, and why each other option lost.

    A key figure that reads the same for every option becomes a note under the table instead of a column.
    """
    wid, qid = dec.workload, dec.quantity
    pairs = pairs_of(r, wid)
    kind = pairs[0].kind if pairs else ""
    present = defs(pairs)
    ranked = [(o, pair_of(r, dec, o)) for o in dec.options]
    fleets = [(o, p) for o, p in ranked if o.variant != "api"]       # the API has no device figures
    figures, same = [], []
    for q in K.get(kind).key_figures:
        if q not in present or q == qid or (q == "ttft" and "ttft_p95" in present) \
                or (q.startswith("api_") and any(o.variant == "api" for o in dec.options)):
            continue                  # the API's figures are an option's own row
        shown = {show(p, q, present[q]) for _, p in fleets}
        if len(shown) == 1 and len(fleets) > 1:
            same.append(f"{label(q)} {shown.pop()}")
        elif len(figures) < FIGURE_COLUMNS:
            figures.append(q)
    head = ("Rank", "Option", label(qid)) + tuple(label(q) for q in figures) + ("Verdict",)
    rows, mark = [], None
    for i, (o, p) in enumerate(ranked):
        value = value_words(r, dec, o)
        if o.id == dec.recommendation:
            mark = i
        rows.append((str(o.rank) if o.rank else "–", o.label, value, *(figure(p, o, q) for q in figures),
                     verdict(r, dec, o)))
    align = ("r", "l", "r") + ("r",) * len(figures) + ("l",)
    notes = [f"The same for every option: {'; '.join(same)}."] if same else []
    if any(o.failures and o.value is not None for o in dec.options):
        notes.append(f"An option that is priced but fails a requirement (where it runs, the budget) still shows its "
                     f"{objective_words(dec)}, to show what the requirement costs; it is not ranked. One that does not "
                     f"fit or misses a target is not priced (n/a).")
    if dec.unit.endswith("/month"):
        notes.append(f"A month is {HOURS_PER_MONTH:g} hours (365.25 days / 12).")
    if any(o.variant == "api" for o in dec.options):
        notes.append("The hosted API's figures are its provider's: its latency is its stated service level where "
                     "given (api: ttft_p95, per_token_p95), its capacity is not modelled (–).")
    return Table(head, tuple(rows), align, mark), " ".join(notes)


def figure(p: Pair, o, qid: str) -> str:
    """A key figure of an option: the fleet's, or the service's own figure in its place (– where none applies)."""
    if o.variant == "fleet":
        return show(p, qid)
    mapped = VARIANT_FIGURES[o.variant].get(qid, qid if o.variant == "busy_hours" else None)
    return show(p, mapped) if mapped else "–"


def overview(r: Results) -> tuple[Table, ...]:
    """Without a decision: each workload's key figures, options down."""
    if r.decision:
        return ()
    out = []
    for wid in workload_ids(r):
        pairs = pairs_of(r, wid)
        present = defs(pairs)
        figures = [q for q in K.get(pairs[0].kind).key_figures if q in present][:FIGURE_COLUMNS + 1]
        if figures:
            rows = tuple((p.device, *(show(p, q, present[q]) for q in figures)) for p in pairs)
            out.append(Table(("Option",) + tuple(label(q, pairs[0].kind) for q in figures), rows,
                             ("l",) + ("r",) * len(figures),
                             caption=workload_title(r, wid)))
    return tuple(out)


def caveats(r: Results) -> tuple[str, ...]:
    """Entities whose figures are the reference's illustrative numbers, not a product's."""
    groups: dict[str, list[str]] = {}
    used = used_keys(r.pairs)
    for key, i in r.inputs.items():
        if key in used and "illustrative" in (i.value.source or ""):
            groups.setdefault(f"{i.entity.kind} {i.entity.id}", []).append(i.path)
    return tuple(f"{ent}: {', '.join(paths)}" for ent, paths in groups.items())


# -- per workload ----------------------------------------------------------------------------------------
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
        rows = tuple((i.path, i.value.text, F.INPUTS[i.role].description,
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
                shown = (show(p, qid, d) if qid in p.values else "–" for p in chunk)
                rows.append((label(qid, chunk[0].kind), *shown))
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


def workload_charts(r: Results, wid: str, pairs: list[Pair]) -> tuple[Chart, ...]:
    kind = K.get(pairs[0].kind)
    found = [roofline_chart(r, wid, pairs) if kind.roofline_point else None,
             memory_chart(r, wid, pairs) if kind.memory else None]
    for s in r.sweeps:
        if s.workload == wid and s.parameter == "batch":
            found.append(batch_chart(r, s))
        if s.workload == wid and s.parameter == "size":
            found.append(crossover_chart(r, wid, pairs, s))
    if kind.cost_per_unit:
        found.append(utilisation_chart(r, wid, pairs))
    return tuple(c for c in found if c is not None)


class Named:
    """A pair's inputs (by role) and quantities (by id) as references, to evaluate one definition on them."""

    def __init__(self, names):
        self._names = set(names)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return F.Ref(name, name) if name in self._names else F.Missing(frozenset([name]))

    def has(self, name: str) -> bool:
        return name in self._names

    def text(self, name: str) -> None:
        return None


def roof(r: Results, p: Pair, intensity) -> Any:
    """The engine's roofline (the attainable_rate definition) for the pair's device, at any intensities."""
    env = {r.inputs[ref.key].role: r.inputs[ref.key].value.value
           for x in p.present() for ref in F.refs(x.expr) if ref.key in r.inputs}
    env.update(p.values)
    env["intensity"] = intensity
    d = F.definition("attainable_rate")
    if d is None:
        return None
    e = d.fn(Named(env))
    return None if isinstance(e, F.Missing) else F.evaluate(e, env)


def roofline_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    col = colours(r)
    ceilings, points = [], []
    lo = min((p.values["intensity"] for p in pairs if "intensity" in p.values), default=None)
    hi = max((p.values.get("ridge_point", 0) for p in pairs), default=0)
    if lo is None or not hi:
        return None
    xs = np.geomspace(min(lo, hi) / 10, max(lo, hi) * 10, 200)
    for p in pairs:
        ys = roof(r, p, xs) if "intensity" in p.values else None
        if ys is None:
            continue
        i = p.values["intensity"]
        ceilings.append(charts.Series(p.device, col[p.device], list(xs), list(ys)))
        points.append(charts.Point(p.device, col[p.device], i, float(roof(r, p, i))))
        if p.kind == "matmul" and "effective_rate" in p.values:
            points.append(charts.Point(p.device, col[p.device], i, p.values["effective_rate"], hollow=True))
    if not ceilings:
        return None
    what = K.get(pairs[0].kind).roofline_point
    hollow = " Hollow dot: the rate achieved with the copies, transfers and launch included." \
        if any(p.hollow for p in points) else ""
    return Chart(f"Roofline of {wid}: each device's ceiling (peak rate, and memory bandwidth × intensity below "
                 f"the ridge point); the dot is {what} on that device.{hollow}",
                 charts.roofline(f"Roofline: {wid}", ceilings, points))


def memory_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    """Each device's memory need, in its parts, against the capacity its `fits` check compares it with."""
    col = colours(r)
    memory = K.get(pairs[0].kind).memory
    bars = []
    for p in pairs:
        parts = tuple((words, p.values[q]) for words, q in memory.parts if isinstance(p.values.get(q), float))
        if parts:
            held = held_against(r, p, memory.check)
            bars.append(charts.Bar(p.device, col[p.device], parts, held[1] if held else None))
    if not bars:
        return None
    return Chart(f"Memory of {wid} against each device's capacity as its fit check counts it (black mark).",
                 charts.memory(f"Memory: {wid}", bars))


def batch_chart(r: Results, s) -> Chart | None:
    col = colours(r)
    xs = [float(x) for x in s.values]
    user, total, step, unfit = [], [], [], []
    for did, q in s.series.items():
        if "tokens_per_s_per_user" not in q:
            continue
        c = col.get(did, 0)
        user.append(charts.Series(did, c, xs, plain(q["tokens_per_s_per_user"])))
        total.append(charts.Series(did, c, xs, plain(q["tokens_per_s"])))
        step.append(charts.Series(did, c, xs, plain(q["step_time"])))
        unfit += [charts.Point(did, c, x, t, y2=rate) for x, t, rate, ok in
                  zip(xs, plain(q["step_time"]), plain(q["tokens_per_s"]), plain(q.get("fits", []))) if ok is False]
    if not user:
        return None
    target = r.inputs.get(f"workload.{s.workload}.targets.per_token_p95")
    return Chart(f"Batch sweep of {s.workload}: throughput per user and in total (left), and the per-token time "
                 f"against the target (right). A cross marks a batch that does not fit in memory (in both panels).",
                 charts.batch_sweep(f"Batch sweep: {s.workload}", user, total, step,
                                    target.value.value if target else None, unfit))


def crossover_chart(r: Results, wid: str, pairs: list[Pair], s) -> Chart | None:
    """Elapsed time vs size, re-evaluated by the engine on a fine grid over the sweep's range."""
    col = colours(r)
    keys = [f"workload.{wid}.{f}" for f in sweep_paths("size")]
    xs = np.geomspace(min(s.values) / 4, max(s.values), 200)     # a little below the sweep: both sides of it
    env = what_if(r, {k: xs for k in keys}, pairs)
    series = [charts.Series(p.device, col[p.device], list(xs),
                            list(np.broadcast_to(env[f"{wid}/{p.device}/total_time"], xs.shape)))
              for p in pairs if f"{wid}/{p.device}/total_time" in env]
    marks = []
    for c in s.crossovers:
        if c.kind == "faster":
            marks.append(charts.Point(f"{c.faster} faster from {number(c.at)}", 0, c.at, 0.0))
    if not series:
        return None
    return Chart(f"Elapsed time of {wid} against the size of the product (m = n = k), transfers and overheads "
                 f"included; the dotted line marks where the faster device changes.",
                 charts.crossover(f"Link crossover: {wid}", series, marks, "size"))


def utilisation_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    """Cost per unit of output vs utilisation: the engine re-run with the input that sets utilisation swept.

    Where an average traffic is given it sets the utilisation (of a fleet sized for the peak): it is swept from
    2 % to 100 % of the peak and the engine's average_utilisation is the x axis. Otherwise the stated
    utilisation is swept from 5 % to 100 %.
    """
    qid = K.get(pairs[0].kind).cost_per_unit
    if not any(qid in p.values for p in pairs):
        return None
    average, peak = (f"workload.{wid}.traffic.{f}" for f in ("average", "peak"))
    key = f"workload.{wid}.{sweep_paths('utilisation')[0]}"
    if peak in r.inputs and (average in used_keys(pairs) or key in r.inputs):
        grid = np.linspace(0.02, 1.0, 96)
        swept = {average: r.inputs[peak].value.value * grid} if average in used_keys(pairs) else {key: grid}
        env = what_if(r, swept, pairs)
        xs = {p.device: env.get(f"{wid}/{p.device}/average_utilisation") for p in pairs}
        what = "average traffic (2 % to 100 % of the peak) swept; the fleet is sized for the peak"
    elif key in r.inputs:
        env = what_if(r, {key: UTILISATION_GRID}, pairs)
        xs = {p.device: UTILISATION_GRID for p in pairs}
        what = "utilisation swept"
    else:
        return None
    col = colours(r)
    d = defs(pairs)[qid]
    name, factor = charts.scaled([p.values[qid] for p in pairs if isinstance(p.values.get(qid), float)
                                  and math.isfinite(p.values[qid])], d.unit)
    series, stated = [], []
    for p in pairs:
        x = xs[p.device]
        if not isinstance(p.values.get(qid), float) or not math.isfinite(p.values[qid]) or x is None:
            continue                      # not priced (infeasible) or not computed
        ys = np.broadcast_to(env[f"{wid}/{p.device}/{qid}"], np.shape(x)) / factor
        series.append(charts.Series(p.device, col[p.device], list(x), list(ys)))
        at = p.values.get("average_utilisation", r.inputs[f"workload.{wid}.traffic.utilisation"].value.value
                          if f"workload.{wid}.traffic.utilisation" in r.inputs else None)
        if at is not None:
            stated.append(charts.Point(p.device, col[p.device], at, p.values[qid] / factor))
    if not series:
        return None
    api = next((p.values["api_cost_per_million_tokens"] for p in pairs if qid == "cost_per_million_tokens"
                and isinstance(p.values.get("api_cost_per_million_tokens"), float)), None)
    reference = charts.Point("hosted API", 0, 0.0, api / factor) if api is not None else None
    return Chart(f"{label(qid)} of {wid} against the average utilisation of the devices: the engine re-run with "
                 f"the {what}. Idle time is paid for; dots mark the scenario"
                 f"{'; the dashed line is the hosted API' if reference else ''}.",
                 charts.cost_vs_utilisation(f"{label(qid)} vs utilisation: {wid}", series, stated,
                                            f"{label(qid).lower()} ({currency.label(name or d.unit)})", reference))


# -- sensitivity and break-even --------------------------------------------------------------------------
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
    decisions = iter(decide_each(r, changes, which))
    moves = []
    for key in keys:
        out = []
        for f in SENSITIVITY:
            if nudged(r, key, f) is None:
                out.append(Outcome(False, best, base))
                continue
            alt = next(decisions)
            chosen = alt.best if alt else None
            out.append(Outcome(True, chosen.label if chosen else None, chosen.value if chosen else None))
        moves.append((key, out))
    changed = lambda o: o.moved and (o.device != best or fmt(o.value) != fmt(base))   # noqa: E731
    shown = [m for m in moves if any(changed(o) for o in m[1])]
    shown.sort(key=lambda m: (-sum(o.device != best for o in m[1]), -swing(base, m[1]), m[0]))
    flips = tuple(f"{input_label(r, key)} ({r.inputs[key].value.text}) {'−25 %' if j == 0 else '+25 %'} → "
                  f"{o.device or 'no option qualifies'}"
                  for key, out in shown for j, o in enumerate(out) if o.moved and o.device != best)
    intro = (f"Each assumption below was moved down and up by 25 % (fractions capped at 100 %), one at a time, and "
             f"the engine re-run. Headline: {objective_words(dec)} of the recommended option, now {fmt(base)} on "
             f"{best}. {len(moves) - len(shown)} other assumptions move neither the recommendation nor the "
             f"headline.")
    swings = [charts.Swing(input_label(r, key), *(o.value if o.moved else None for o in out),
                           *(f"→ {o.device or 'none'}" if o.moved and o.device != best else "" for o in out))
              for key, out in shown[:TORNADO_ROWS]]
    chart = None
    if swings:
        chart = Chart("Tornado: the headline figure with each assumption at −25 % (blue) and +25 % (orange); a red "
                      "note names the option recommended instead.",
                      charts.tornado(f"Sensitivity of the {objective_words(dec)}", base, swings, d.unit,
                                     "assumption −25 %", "assumption +25 %"))
    rows = tuple((input_label(r, key), r.inputs[key].value.text,
                  *(x for o in out for x in ((o.device or "none qualifies", fmt(o.value)) if o.moved
                                             else ("(already 100 %)", ""))))
                 for key, out in shown)
    head = ("Assumption", "As given", "−25 %: recommended", "headline", "+25 %: recommended", "headline")
    more = f"and {len(flips) - FLIPS_SHOWN} more in the sensitivity section" if len(flips) > FLIPS_SHOWN else ""
    return Sensitivity(intro, flips[:FLIPS_SHOWN], more, chart, Table(head, rows, ("l", "r", "l", "r", "l", "r")))


def swing(base: float, outcome: list[Outcome]) -> float:
    return max((abs(o.value - base) for o in outcome if isinstance(o.value, float)), default=0.0)


def input_label(r: Results, key: str) -> str:
    i = r.inputs[key]
    return f"{i.entity.id} {i.path}"


# -- method ----------------------------------------------------------------------------------------------
def method(r: Results) -> tuple[MethodGroup, ...]:
    """The formulas actually used, printed from the formula graph, one group per workload kind."""
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
                variants.setdefault(x.d.id, {}).setdefault(currency.units(F.to_text(x.expr)), []).append(p.device)
        entries = []
        for qid, d in found.items():
            forms = variants[qid]
            texts = tuple(t if len(forms) == 1 else f"{t}   [{', '.join(dict.fromkeys(devs))}]"
                          for t, devs in forms.items())
            entries.append(MethodEntry(qid, currency.units(d.unit) or "–", d.description, texts))
        if any(p.compared for p in pairs):
            c = next(x.d for p in pairs for x in p.compared)
            entries.append(MethodEntry("speedup_vs_<device>", "–", "speed-up against each other device",
                                       (c.description.rsplit(" (", 1)[0],)))
        out.append(MethodGroup(K.get(kind).words, tuple(entries)))
    return tuple(out)


def glossary(r: Results) -> tuple[tuple[str, str, str], ...]:
    """The input names the formulas use, with their SI unit and meaning."""
    used = used_keys(r.pairs)
    roles = dict.fromkeys(i.role for k, i in r.inputs.items() if k in used)
    return tuple((role, currency.units(F.INPUTS[role].unit) or "–", F.INPUTS[role].description) for role in roles)

